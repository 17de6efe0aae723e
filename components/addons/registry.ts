/**
 * The registry of add-ons, as node-group kinds (components/nodegroups/kinds.ts) and compute modes
 * (components/compute/index.ts) have theirs. Each add-on is its section in `addons` (schema.ts)
 * and one module that declares the rest (`PlatformAddon`, addon.ts): its component, its source
 * (EKS add-on or Helm chart, the key of its pods model in the rehearsal's `ADDON_SPECS`), its
 * preflight config keys, what it provides workloads, the AWS resource types it creates. `ComputeAddons`
 * (index.ts), `npm run preflight` and `npm run manifests -- fit` read this list; none of them names
 * an add-on. The compiler holds it to the sections of `addons`, key for key, and
 * test/components/addons/registry.test.ts fails naming each part a registered add-on lacks.
 *
 * Not here, being of another nature: the cluster add-ons pinned in `cluster.addons` (vpc-cni,
 * kube-proxy, eks-pod-identity-agent, installed with the control plane by components/cluster.ts;
 * CoreDNS, installed by `ComputeAddons` once nodes exist, coreDns.ts) are versions of the cluster
 * itself, upgraded with it; Karpenter (components/karpenter) is compute, with its own section,
 * AWS side and node pools, installed before the add-ons so their pods have nodes.
 */
import type { AddonKey, PlatformAddon } from "./addon";
import { ebsCsiDriver } from "./ebsCsi";
import { loadBalancerController } from "./loadBalancerController";
import { metricsServer } from "./metricsServer";

/** The add-ons in the order `ComputeAddons` installs them. Adding one is its module and its entry here. */
export const ADDONS = [metricsServer, ebsCsiDriver, loadBalancerController] as const;

/** What `ComputeAddons` installed, by section key: each add-on's component, none where it is not installed. */
export type InstalledAddons = { [A in (typeof ADDONS)[number] as A["key"]]?: ReturnType<A["install"]> };

type Unregistered = Exclude<AddonKey, (typeof ADDONS)[number]["key"]>;
type Requires<T extends true> = T;
/** Compiles only while every section of `addons` has its add-on in `ADDONS` (tsc names the check, the test the section). */
export type EverySectionRegistered = Requires<[Unregistered] extends [never] ? true : false>;

/** The registered add-ons as their common interface. */
export const REGISTERED_ADDONS: readonly PlatformAddon[] = ADDONS;
