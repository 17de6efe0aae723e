/** `access` in stack config (who may reach the cluster at all) and `podSecurity` (the stack's Pod Security Admission levels). */
import { POD_SECURITY_LEVELS } from "eks-platform-kernel";
import { z } from "zod";

/** An IAM role ARN in any partition, e.g. `arn:aws:iam::123456789012:role/platform-admin`. */
export const roleArn = z.string().regex(/^arn:aws(-[a-z]+)*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/, {
    message: "must be an IAM role ARN such as arn:aws:iam::123456789012:role/platform-admin",
});

/** `access` in stack config: who may reach the cluster at all. */
export const accessSchema = z
    .strictObject({
        /**
         * The role that runs `pulumi up` (CI's OIDC role of the stack's environment). It gets a
         * cluster-admin access entry kept in Pulumi's state; the program refuses to run `up` as
         * anyone who is neither this role nor listed in `admins`, so no config change can lock the
         * runner out.
         */
        deployer: roleArn,
        /** Roles granted AmazonEKSClusterAdminPolicy cluster-wide. Defaults to `[]`. */
        admins: z.array(roleArn).default([]),
        /**
         * The read-only role `pulumi preview` runs as in CI (environment `preview`): an access
         * entry with no access policy and no Kubernetes group, so it authenticates and reads API
         * discovery only (see docs/ci.md, "What a preview needs"). Defaults to none.
         */
        preview: roleArn.optional(),
        /**
         * The read-only role of the scheduled drift check (`.github/workflows/drift.yml`,
         * environment `drift-<stack>`, `main` only): `pulumi preview --refresh` reads every live
         * object, so its entry holds AmazonEKSAdminViewPolicy cluster-wide (get, list and watch on
         * every kind, Secrets included) and nothing that writes (docs/operations.md, "Drift"). Defaults to none.
         */
        drift: roleArn.optional(),
    })
    .superRefine((a, ctx) => {
        if (a.preview === a.deployer) {
            ctx.addIssue({
                code: "custom",
                path: ["preview"],
                message: "is the deployer: previews run branch code and must not hold the role that changes the stack",
            });
        }
        if (a.drift !== undefined && (a.drift === a.deployer || a.drift === a.preview)) {
            ctx.addIssue({
                code: "custom",
                path: ["drift"],
                message:
                    a.drift === a.deployer
                        ? "is the deployer: the drift check only reads, and a principal holds one access entry"
                        : "is the preview role: previews run branch code, which must not read the cluster's Secrets",
            });
        }
        a.admins.forEach((arn, i) => {
            if (arn === a.deployer) {
                ctx.addIssue({
                    code: "custom",
                    path: ["admins", i],
                    message: "is the deployer, which already gets the cluster-admin entry; EKS rejects a second entry for it",
                });
            }
            if (arn === a.preview) {
                ctx.addIssue({
                    code: "custom",
                    path: ["admins", i],
                    message: "is the preview role: previews run branch code, so that role must stay read-only",
                });
            }
            if (arn === a.drift) {
                ctx.addIssue({
                    code: "custom",
                    path: ["admins", i],
                    message: "is the drift role, whose entry stays read-only: a principal holds one access entry",
                });
            }
            if (a.admins.indexOf(arn) !== i) {
                ctx.addIssue({ code: "custom", path: ["admins", i], message: "is listed twice" });
            }
        });
    });

export type AccessConfig = z.output<typeof accessSchema>;

const PSA_LEVEL = z.enum(POD_SECURITY_LEVELS);

/** Pod Security Admission levels of a namespace. */
export const podSecuritySchema = z.strictObject({
    /** Pods violating this level are rejected. */
    enforce: PSA_LEVEL,
    /** Users get a warning for pods violating this level. Defaults to the enforce level. */
    warn: PSA_LEVEL.optional(),
    /** Violations of this level are recorded in the audit log. Defaults to the enforce level. */
    audit: PSA_LEVEL.optional(),
});

export type PodSecurityConfig = z.output<typeof podSecuritySchema>;
