/** Hand-built plans and readers of policy statements for the deploy role's tests. */
import { expect } from "chai";
import { actionCovers } from "eks-platform-kernel";
import type { PolicyDocument, PolicyStatement } from "../../../components/iam";
import { DEPLOYER_ACTIONS, type DeployerActions } from "../../../tools/roles/deployerActions";
import type { DeployerContext, PlannedResource } from "../../../tools/roles/deployRole";

export const CTX: DeployerContext = {
    stack: "qa",
    project: "eks-platform",
    partition: "aws",
    account: "111122223333",
    region: "eu-west-1",
    clusterName: "acme",
    stateBucket: "acme-state",
    principals: ["arn:aws:iam::111122223333:role/platform-deployer-qa"],
};
export const BOUNDARY = "arn:aws:iam::111122223333:policy/acme-boundary";
export const res = (type: string, name: string, props: Record<string, unknown> = {}): PlannedResource => ({ type, name, props });
export const role = (name: string | undefined, props: Record<string, unknown> = {}) =>
    res("aws:iam/role:Role", `r-${name}`, { ...(name === undefined ? {} : { name }), permissionsBoundary: BOUNDARY, ...props });

export const actionsOf = (s: PolicyStatement) => (Array.isArray(s.Action) ? s.Action : s.Action === undefined ? [] : [s.Action]);
export const resourcesOf = (s: PolicyStatement) => (Array.isArray(s.Resource) ? s.Resource : s.Resource === undefined ? [] : [s.Resource]);
export const bySid = (doc: PolicyDocument, sid: string) => {
    const found = doc.Statement.find((s) => s.Sid === sid);
    expect(found, `statement ${sid}`).to.not.equal(undefined);
    return found as PolicyStatement;
};
export const sids = (doc: PolicyDocument) => doc.Statement.map((s) => s.Sid);
export const allows = (doc: PolicyDocument, action: string) =>
    doc.Statement.filter((s) => s.Effect === "Allow" && actionsOf(s).some((p) => actionCovers(p, action)));

/** IAM actions that write identities or policies. */
export const IAM_WRITES =
    /^iam:(Create|Delete|Put|Attach|Detach|Update|Add|Remove|Set|Tag|Untag|Upload|Change|Enable|Deactivate|Reset|Resync)/;

/**
 * `fn`'s result with `type` given `entry` in tools/roles/deployerActions.ts for its duration: rules of
 * the generator that no entry of the table exercises (a scope without actions, a role type with
 * attachments only).
 */
export function withEntry<T>(type: string, entry: DeployerActions, fn: () => T): T {
    const table = DEPLOYER_ACTIONS as Record<string, DeployerActions>;
    expect(table[type], `${type} has no entry of its own`).to.equal(undefined);
    table[type] = entry;
    try {
        return fn();
    } finally {
        delete table[type];
    }
}
