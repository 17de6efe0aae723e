import { POD_SECURITY_LEVELS } from "eks-platform-policies/lib";
import { z } from "zod";

/** An IAM role ARN in any partition, e.g. `arn:aws:iam::123456789012:role/platform-admin`. */
export const roleArn = z.string().regex(/^arn:aws(-[a-z]+)*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/, {
    message: "must be an IAM role ARN such as arn:aws:iam::123456789012:role/platform-admin",
});

/** `access` in stack config: who may reach the cluster at all. */
export const accessSchema = z
    .strictObject({
        /**
         * The role that runs `pulumi up` (CI's OIDC role). It created the cluster, so EKS gave it
         * the bootstrap cluster-admin access entry; the program refuses to run as anyone who is
         * neither this role nor listed in `admins`, so no config change can lock the runner out.
         */
        deployer: roleArn,
        /** Roles granted AmazonEKSClusterAdminPolicy cluster-wide. Defaults to `[]`. */
        admins: z.array(roleArn).default([]),
    })
    .superRefine((a, ctx) => {
        a.admins.forEach((arn, i) => {
            if (arn === a.deployer) {
                ctx.addIssue({
                    code: "custom",
                    path: ["admins", i],
                    message: "is the deployer, which already holds the bootstrap admin entry; EKS rejects a second entry for it",
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
