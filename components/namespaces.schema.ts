/** `namespaces` in stack config: each team's namespace, its quota, access, network isolation and service-account roles. */
import { z } from "zod";
import {
    allowsEverything,
    compareQuantities,
    conditionOperatorProblem,
    isPolicyArn,
    policyArnKey,
    policySize,
    RESERVED_NAMESPACES,
    ROLE_INLINE_POLICY_LIMIT,
} from "eks-platform-kernel";
import { type PodSecurityConfig, podSecuritySchema, roleArn } from "./access.schema";
import { cpuMemory, dnsLabel, labels, quantity } from "./schema";

/** A service account name: a DNS-1123 subdomain. */
const serviceAccountName = z
    .string()
    .max(253)
    .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/, {
        message: "must be a DNS-1123 subdomain: lower-case letters, digits, '-' and '.', e.g. reports",
    });

const stringOrList = z.union([z.string().min(1), z.array(z.string().min(1)).min(1)], {
    error: (issue) => (issue.input === undefined ? "is required" : "must be a string or a non-empty list of strings"),
});

/** One statement of a service account's inline IAM policy, in the JSON policy language. */
const statementSchema = z.strictObject({
    /** Statement id (letters and digits). Defaults to none. */
    Sid: z
        .string()
        .regex(/^[A-Za-z0-9]+$/, { message: "must hold letters and digits only" })
        .optional(),
    /** Defaults to `Allow`. */
    Effect: z.enum(["Allow", "Deny"]).default("Allow"),
    /** Actions, e.g. `s3:GetObject` or `[sqs:ReceiveMessage, sqs:DeleteMessage]`. */
    Action: stringOrList,
    /** Resource ARNs the actions apply to. */
    Resource: stringOrList,
    /** IAM condition block, e.g. `{ StringEquals: { "aws:RequestedRegion": us-east-1 } }`. Defaults to none. */
    Condition: z.record(z.string(), z.record(z.string(), z.union([z.string(), z.array(z.string()), z.boolean(), z.number()]))).optional(),
});

type Statement = z.output<typeof statementSchema>;

/**
 * The size IAM counts for the inline policy of a service account's role: the document
 * `inlinePolicyOf` (components/serviceAccountRoles.ts) renders, one per role, white space left
 * out (test/components/namespaces.schema.test.ts holds the two together). Pure.
 */
export function inlinePolicySize(statements: readonly Statement[]): number {
    return statements.length === 0 ? 0 : policySize({ Version: "2012-10-17", Statement: statements });
}

/** The service account every pod of a namespace runs as when it names none (Kubernetes' ServiceAccount admission). */
export const DEFAULT_SERVICE_ACCOUNT = "default";

/** The AWS role of one service account (EKS Pod Identity). */
const serviceAccountSchema = z
    .strictObject({
        /** Managed policy ARNs attached to the role. Defaults to `[]`. */
        policyArns: z
            .array(
                z.string().refine(isPolicyArn, {
                    message: "must be a managed policy ARN such as arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess",
                }),
            )
            .default([]),
        /** Statements of the role's inline policy. Defaults to `[]`. */
        statements: z.array(statementSchema).default([]),
        /**
         * Only on `serviceAccounts.default`: grant the role to the namespace's `default` service
         * account on purpose, knowing every pod of the namespace that names no service account
         * runs as it and gets the role's credentials. Defaults to `false`.
         */
        allowDefaultServiceAccount: z.boolean().optional(),
    })
    .superRefine((sa, ctx) => {
        if (sa.policyArns.length === 0 && sa.statements.length === 0) {
            ctx.addIssue({ code: "custom", path: [], message: "grants nothing: list policyArns and/or statements" });
        }
        const keys = new Map<string, number>();
        sa.policyArns.forEach((arn, i) => {
            const key = isPolicyArn(arn) ? policyArnKey(arn) : arn;
            if (keys.has(key)) {
                ctx.addIssue({ code: "custom", path: ["policyArns", i], message: `is listed twice (also at [${keys.get(key)}])` });
            }
            keys.set(key, i);
        });
        const size = inlinePolicySize(sa.statements);
        if (size > ROLE_INLINE_POLICY_LIMIT) {
            ctx.addIssue({
                code: "custom",
                path: ["statements"],
                message: `make an inline policy of ${size} characters (white space not counted), over IAM's ${ROLE_INLINE_POLICY_LIMIT} for a role's inline policies (IAM and AWS STS quotas): PutRolePolicy fails with LimitExceeded at \`pulumi up\`, after a green preview; move statements into a managed policy (policyArns) or merge actions and resources`,
            });
        }
        sa.statements.forEach((statement, i) => {
            for (const operator of Object.keys(statement.Condition ?? {})) {
                const problem = conditionOperatorProblem(operator);
                if (problem) {
                    ctx.addIssue({
                        code: "custom",
                        path: ["statements", i, "Condition", operator],
                        message: `${problem}; IAM refuses the policy (MalformedPolicyDocument) at \`pulumi up\`, after a green preview`,
                    });
                }
            }
            if (allowsEverything(statement)) {
                ctx.addIssue({
                    code: "custom",
                    path: ["statements", i],
                    message:
                        "allows every action on every resource (*:*), which is administrator access: list the actions and resources the application needs",
                });
            }
        });
    });

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
        /**
         * AWS roles for the namespace's service accounts, keyed by service account name: each gets
         * an IAM role only pods of that service account in this namespace and cluster can assume
         * (EKS Pod Identity). Defaults to `{}`.
         */
        serviceAccounts: z.record(serviceAccountName, serviceAccountSchema).default({}),
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
        /**
         * Target-health readiness gates: the namespace carries the AWS Load Balancer Controller's
         * `elbv2.k8s.aws/pod-readiness-gate-inject: enabled`, so a pod behind an ALB or NLB `ip`
         * target is Ready only once its target is healthy, and a rollout or a drain the
         * PodDisruptionBudget lets through never leaves the target group without a healthy
         * target. `false` opts a namespace out. Defaults to `true`.
         */
        readinessGates: z.boolean().default(true),
    })
    .superRefine((ns, ctx) => {
        // Exactly, as the API server compares quantities: "1.0000000000000001" exceeds "1" though the floats are equal.
        const le = (a: string, b: string) => compareQuantities(a, b) !== 1;
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
        for (const [name, sa] of Object.entries(ns.serviceAccounts)) {
            if (name === DEFAULT_SERVICE_ACCOUNT && !sa.allowDefaultServiceAccount) {
                ctx.addIssue({
                    code: "custom",
                    path: ["serviceAccounts", name],
                    message:
                        "is the namespace's default service account, which every pod that names no serviceAccountName runs as: the role would reach every such pod; give the application a service account of its own, or set allowDefaultServiceAccount: true to mean it",
                });
            }
            if (name !== DEFAULT_SERVICE_ACCOUNT && sa.allowDefaultServiceAccount) {
                ctx.addIssue({
                    code: "custom",
                    path: ["serviceAccounts", name, "allowDefaultServiceAccount"],
                    message: `is only read on serviceAccounts.${DEFAULT_SERVICE_ACCOUNT}; remove it`,
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

const RESERVED = new Set<string>(RESERVED_NAMESPACES);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** `namespaces` in stack config: a map keyed by namespace name. */
export const namespacesSchema = z.record(dnsLabel, namespaceSchema).superRefine(
    (map, ctx) => {
        // Runs on the raw map too (`when`): an entry holding only service accounts fails the
        // namespace schema, and this says why in words rather than as missing keys only.
        const raw: Record<string, unknown> = isRecord(map) ? map : {};
        for (const [name, ns] of Object.entries(raw)) {
            if (RESERVED.has(name)) {
                ctx.addIssue({ code: "custom", path: [name], message: "is a system namespace the platform does not manage" });
            }
            if (isRecord(ns) && ns.serviceAccounts !== undefined && (ns.quota === undefined || ns.containerDefaults === undefined)) {
                ctx.addIssue({
                    code: "custom",
                    path: [name, "serviceAccounts"],
                    message: `are declared in namespace "${name}", which this stack does not create (it has no quota and containerDefaults): declare the namespace, or move the service accounts to one that exists`,
                });
            }
        }
        const owners = new Map<string, string>();
        for (const [name, ns] of Object.entries(raw)) {
            for (const sa of isRecord(ns) && isRecord(ns.serviceAccounts) ? Object.keys(ns.serviceAccounts) : []) {
                // Role and resource names join namespace and service account with '-'.
                const key = `${name}-${sa}`;
                const other = owners.get(key);
                if (other !== undefined) {
                    ctx.addIssue({
                        code: "custom",
                        path: [name, "serviceAccounts", sa],
                        message: `gets the same role name (<cluster>-${key}) as ${other}: rename one of them`,
                    });
                }
                owners.set(key, `namespaces.${name}.serviceAccounts.${sa}`);
            }
        }
    },
    { when: () => true },
);

/**
 * One namespace with every default resolved, Pod Security levels included: what the components
 * receive. components/config resolves them (a namespace without its own levels takes the stack's
 * `podSecurity`, and warn/audit default to the enforce level).
 */
export type NamespaceConfig = Omit<z.output<typeof namespaceSchema>, "podSecurity"> & { podSecurity: Required<PodSecurityConfig> };
export type NamespacesConfig = z.output<typeof namespacesSchema>;
