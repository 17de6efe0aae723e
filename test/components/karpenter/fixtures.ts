/** What the Karpenter component tests share. */
import type { EnabledKarpenterConfig } from "../../../components/karpenter/schema";
import { fixtureProject, stackConfig } from "../../stackFiles";

/** The Karpenter section of a fixture stack. */
export function karpenterOf(stack: string): EnabledKarpenterConfig {
    const k = stackConfig(stack, fixtureProject()).karpenter;
    if (!k.enabled) {
        throw new Error(`karpenter is disabled in ${stack}`);
    }
    return k;
}

/** The custom resources the component renders. */
export const NODEPOOL = "kubernetes:karpenter.sh/v1:NodePool";
export const NODECLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass";
