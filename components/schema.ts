/**
 * Schema building blocks shared by every component's config section. Each component owns its
 * section in a schema module (`schema.ts` in its folder, or `<component>.schema.ts` beside a
 * one-file component), built from these blocks; components/config assembles the sections. A
 * schema module imports only zod, the kernel and other schema modules
 * (test/components.layering.test.ts). Each refinement reports the rule it enforces so the
 * aggregated error tells the operator how to fix the key.
 */
import { compareQuantities, labelKeyProblem, labelValueProblem, parseCidr, parseQuantity } from "eks-platform-kernel";
import { z } from "zod";

/** One problem spanning config sections, with its path from the project namespace. */
export interface CrossSectionIssue {
    path: (string | number)[];
    message: string;
}

/** An IPv4 CIDR block with zero host bits, e.g. `10.0.0.0/16`. */
export const cidr = z
    .string()
    .refine((v) => parseCidr(v) !== undefined, { message: "must be an IPv4 CIDR with zero host bits, e.g. 10.0.0.0/16" });

/** A Kubernetes resource quantity, e.g. `500m`, `4`, `8Gi`. */
export const quantity = z
    .union([z.string(), z.number()])
    .refine(
        (v) => {
            const parsed = parseQuantity(v);
            return parsed !== undefined && parsed >= 0;
        },
        { message: "must be a Kubernetes quantity, e.g. 500m, 2, 8Gi" },
    )
    .transform((v) => String(v));

/** A DNS-1123 label: namespace names, node group keys. */
export const dnsLabel = z.string().regex(/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/, {
    message: "must be a DNS-1123 label: lower-case letters, digits and '-', at most 63 characters",
});

/** True for a qualified Kubernetes label key such as `workload` or `karpenter.sh/capacity-type`. */
export function isLabelKey(key: string): boolean {
    return labelKeyProblem(key) === undefined;
}

/** True for a Kubernetes label value (may be empty). */
export function isLabelValue(value: string): boolean {
    return labelValueProblem(value) === undefined;
}

/** A map of Kubernetes labels with valid keys and values. */
export const labels = z.record(z.string(), z.string()).superRefine((map, ctx) => {
    for (const [key, value] of Object.entries(map)) {
        if (!isLabelKey(key)) {
            ctx.addIssue({ code: "custom", path: [key], message: "is not a valid Kubernetes label key" });
        } else if (!isLabelValue(value)) {
            ctx.addIssue({ code: "custom", path: [key], message: `value "${value}" is not a valid Kubernetes label value` });
        }
    }
});

/** AWS resource tags: at most 50, keys up to 128 and values up to 256 characters. */
export const awsTags = z
    .record(z.string().min(1).max(128), z.string().max(256))
    .refine((t) => Object.keys(t).length <= 50, { message: "AWS allows at most 50 tags per resource" });

/**
 * The IMDSv2 hop limit of nodes. A container on the pod network is two hops from the instance
 * metadata service, so 1 keeps pods off the node role's credentials (they use Pod Identity) and 2
 * lets them read instance metadata; more reaches nothing further. The policy pack refuses 2 unless
 * its `maxHopLimit` allows it. Defaults to `1`.
 */
export const hopLimit = z.number().int().min(1).max(2).default(1);

/** A positive whole number. */
export const positiveInt = z.number().int().positive();

/** A Kubernetes CPU and memory pair, e.g. `{ cpu: 250m, memory: 512Mi }`. */
export const cpuMemory = z.strictObject({ cpu: quantity, memory: quantity });

/**
 * Requests and limits of a platform controller's container, each request at most its limit (the
 * API server refuses a pod otherwise). `defaults` is used when the key is absent.
 */
export function containerResources(defaults: { requests: { cpu: string; memory: string }; limits: { cpu: string; memory: string } }) {
    return z
        .strictObject({ requests: cpuMemory, limits: cpuMemory })
        .default(defaults)
        .superRefine((r, ctx) => {
            for (const key of ["cpu", "memory"] as const) {
                // Exactly, as the API server compares them (not as floats).
                if (compareQuantities(r.requests[key], r.limits[key]) === 1) {
                    ctx.addIssue({
                        code: "custom",
                        path: ["requests", key],
                        message: `${r.requests[key]} exceeds the limit ${r.limits[key]}`,
                    });
                }
            }
        });
}

/**
 * The retention periods CloudWatch Logs accepts (`PutRetentionPolicy` `retentionInDays`); any
 * other number passes a preview and fails at `pulumi up` with InvalidParameterException.
 */
export const CLOUDWATCH_RETENTION_DAYS = [
    1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653,
] as const;

/** A CloudWatch Logs retention in days, one of `CLOUDWATCH_RETENTION_DAYS`. */
export const logRetentionDays = z.number().refine((d) => (CLOUDWATCH_RETENTION_DAYS as readonly number[]).includes(d), {
    message: `must be a retention CloudWatch Logs accepts: ${CLOUDWATCH_RETENTION_DAYS.join(", ")} days`,
});

/**
 * True for a node label kubelet refuses to set on itself (`--node-labels`, NodeRestriction):
 * a key in a `kubernetes.io` or `k8s.io` domain other than the `kubelet.kubernetes.io` and
 * `node.kubernetes.io` namespaces and the well-known labels kubelet sets (source: Kubernetes
 * `k8s.io/kubelet/pkg/apis` `IsKubeletLabel`, checked by kubelet's options validation). Such a
 * node never starts its kubelet, so it never joins. Pure.
 */
export function kubeletRefusesLabel(key: string): boolean {
    const namespace = key.includes("/") ? key.slice(0, key.indexOf("/")) : "";
    const inDomain = (domain: string) => namespace === domain || namespace.endsWith(`.${domain}`);
    if (!inDomain("kubernetes.io") && !inDomain("k8s.io")) {
        return false;
    }
    if (KUBELET_LABELS.has(key) || inDomain("kubelet.kubernetes.io") || inDomain("node.kubernetes.io")) {
        return false;
    }
    return true;
}

const KUBELET_LABELS = new Set([
    "kubernetes.io/hostname",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "failure-domain.beta.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region",
    "node.kubernetes.io/instance-type",
    "beta.kubernetes.io/instance-type",
    "kubernetes.io/os",
    "beta.kubernetes.io/os",
    "kubernetes.io/arch",
    "beta.kubernetes.io/arch",
]);
