import { parseQuantity } from "eks-platform-policies/lib";
import { z } from "zod";
import { podSecuritySchema, roleArn } from "./access";
import { dnsLabel, labels, quantity } from "./common";

const cpuMemory = z.strictObject({ cpu: quantity, memory: quantity });

/** One namespace: its quota and the defaults of its LimitRange. */
export const namespaceSchema = z
    .strictObject({
        /** Extra labels on the Namespace object. Defaults to `{}`. */
        labels: labels.default({}),
        /** The ResourceQuota: the most the namespace may request and use in total. */
        quota: z.strictObject({
            requestsCpu: quantity,
            requestsMemory: quantity,
            limitsCpu: quantity,
            limitsMemory: quantity,
            pods: z.number().int().positive(),
        }),
        /** LimitRange defaults for containers that omit requests or limits. */
        containerDefaults: z.strictObject({
            /** Default requests. */
            request: cpuMemory,
            /** Default limits. */
            limit: cpuMemory,
        }),
        /** Roles granted AmazonEKSEditPolicy in this namespace only. Defaults to `[]`. */
        editors: z.array(roleArn).default([]),
        /** Roles granted AmazonEKSViewPolicy in this namespace only. Defaults to `[]`. */
        viewers: z.array(roleArn).default([]),
        /** Pod Security Admission levels. Defaults to the stack-wide `podSecurity`. */
        podSecurity: podSecuritySchema.optional(),
        /** Network isolation. Defaults to `{ allowFrom: [], egress: "open" }`. */
        network: z
            .strictObject({
                /** Other namespaces whose pods may connect to this one. Defaults to `[]`. */
                allowFrom: z.array(dnsLabel).default([]),
                /**
                 * `open`: pods may connect anywhere. `restricted`: only to DNS and to their own
                 * namespace. Defaults to `open`.
                 */
                egress: z.enum(["open", "restricted"]).default("open"),
            })
            .default({ allowFrom: [], egress: "open" }),
    })
    .superRefine((ns, ctx) => {
        const le = (a: string, b: string) => (parseQuantity(a) ?? 0) <= (parseQuantity(b) ?? 0);
        for (const r of ["cpu", "memory"] as const) {
            if (!le(ns.containerDefaults.request[r], ns.containerDefaults.limit[r])) {
                ctx.addIssue({
                    code: "custom",
                    path: ["containerDefaults", "request", r],
                    message: `default request ${ns.containerDefaults.request[r]} exceeds the default limit ${ns.containerDefaults.limit[r]}`,
                });
            }
        }
        const pairs = [
            ["requestsCpu", "limitsCpu"],
            ["requestsMemory", "limitsMemory"],
        ] as const;
        for (const [req, lim] of pairs) {
            if (!le(ns.quota[req], ns.quota[lim])) {
                ctx.addIssue({
                    code: "custom",
                    path: ["quota", req],
                    message: `${ns.quota[req]} exceeds ${lim} ${ns.quota[lim]}: pods could never use their requests`,
                });
            }
        }
        for (const [i, arn] of ns.viewers.entries()) {
            if (ns.editors.includes(arn)) {
                ctx.addIssue({ code: "custom", path: ["viewers", i], message: "is also an editor of this namespace; list it once" });
            }
        }
        const checks = [
            ["limit", "cpu", "limitsCpu"],
            ["limit", "memory", "limitsMemory"],
        ] as const;
        for (const [kind, r, total] of checks) {
            if (!le(ns.containerDefaults[kind][r], ns.quota[total])) {
                ctx.addIssue({
                    code: "custom",
                    path: ["containerDefaults", kind, r],
                    message: `${ns.containerDefaults[kind][r]} exceeds the namespace quota ${total} ${ns.quota[total]}: no defaulted pod could start`,
                });
            }
        }
    });

const RESERVED = new Set(["default", "kube-system", "kube-public", "kube-node-lease"]);

/** `namespaces` in stack config: a map keyed by namespace name. */
export const namespacesSchema = z.record(dnsLabel, namespaceSchema).superRefine((map, ctx) => {
    for (const name of Object.keys(map)) {
        if (RESERVED.has(name)) {
            ctx.addIssue({ code: "custom", path: [name], message: "is a system namespace the platform does not manage" });
        }
    }
});

export type NamespaceConfig = z.output<typeof namespaceSchema>;
export type NamespacesConfig = z.output<typeof namespacesSchema>;
