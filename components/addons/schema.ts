/**
 * `addons` in stack config: the cluster add-ons workload teams expect (storage, load balancers,
 * resource metrics), each pinned per stack. Their controllers run on the system node group.
 */
import { z } from "zod";
import { addonVersion } from "../cluster.schema";
import { containerResources } from "../schema";

/**
 * The `aws-load-balancer-controller` chart versions whose IAM policy the platform keeps: the keys
 * of `LOAD_BALANCER_CONTROLLER_RELEASES` (components/addons/loadBalancerControllerReleases.ts,
 * which holds each one's policy and is checked against this list when it compiles), in its order.
 */
export const LOAD_BALANCER_CONTROLLER_CHART_VERSIONS = ["1.13.3"] as const;

export type LoadBalancerControllerChartVersion = (typeof LOAD_BALANCER_CONTROLLER_CHART_VERSIONS)[number];

/** A KMS key ARN in any partition, e.g. `arn:aws:kms:us-east-1:123456789012:key/<uuid>`. */
const kmsKeyArn = z.string().regex(/^arn:aws(-[a-z]+)*:kms:[a-z0-9-]+:\d{12}:key\/[A-Za-z0-9-]+$/, {
    message: "must be platform, aws-managed or a KMS key ARN such as arn:aws:kms:us-east-1:123456789012:key/1234abcd-…",
});

/**
 * A default `gp3` StorageClass and the key of its volumes, as every driver's section takes it
 * (`addons.ebsCsiDriver.storageClass`, `autoMode.storageClass`). Defaults to
 * `{ kmsKey: platform, reclaimPolicy: Delete }`.
 */
export const volumeStorageClassSchema = z
    .strictObject({
        /**
         * Which key encrypts the volumes: `platform` (a customer-managed key this stack creates,
         * rotated yearly), `aws-managed` (the account's default EBS key), or the ARN of another
         * customer-managed key (the driver's role gets the grants it needs). Defaults to `platform`.
         */
        kmsKey: z.union([z.literal("platform"), z.literal("aws-managed"), kmsKeyArn]).default("platform"),
        /**
         * What happens to a volume when its claim is deleted: `Delete` it, or `Retain` it for an
         * operator to recover or delete by hand. Defaults to `Delete`.
         */
        reclaimPolicy: z.enum(["Delete", "Retain"]).default("Delete"),
    })
    .default({ kmsKey: "platform", reclaimPolicy: "Delete" });

/**
 * Controller replicas: two, so one keeps serving while a drain evicts the other (their PDB allows
 * one eviction at a time).
 */
const replicas = z
    .number()
    .int()
    .min(2, { message: "must be at least 2: with one replica every node drain takes the controller down" })
    .max(5)
    .default(2);

const ebsCsiDriverSchema = z.strictObject({
    /** Pinned `aws-ebs-csi-driver` EKS add-on version (`aws eks describe-addon-versions --addon-name aws-ebs-csi-driver`). */
    version: addonVersion,
    /** The controller Deployment (volume create, attach, resize). Defaults to 2 replicas, 10m/40Mi requested, 100m/256Mi limits. */
    controller: z
        .strictObject({
            /** Defaults to `2`. */
            replicas,
            /** Defaults to 10m CPU / 40Mi requested, 100m / 256Mi limits. */
            resources: containerResources({ requests: { cpu: "10m", memory: "40Mi" }, limits: { cpu: "100m", memory: "256Mi" } }),
        })
        .default({
            replicas: 2,
            resources: { requests: { cpu: "10m", memory: "40Mi" }, limits: { cpu: "100m", memory: "256Mi" } },
        }),
    /** The default StorageClass `gp3`. Defaults to `{ kmsKey: platform, reclaimPolicy: Delete }`. */
    storageClass: volumeStorageClassSchema,
});

const loadBalancerControllerSchema = z.strictObject({
    /**
     * Pinned `aws-load-balancer-controller` chart version; only versions whose IAM policy the
     * platform keeps (components/addons/loadBalancerControllerReleases.ts) are accepted.
     */
    chartVersion: z.string().refine((v) => (LOAD_BALANCER_CONTROLLER_CHART_VERSIONS as readonly string[]).includes(v), {
        message: `must be a chart version whose IAM policy the platform keeps: ${LOAD_BALANCER_CONTROLLER_CHART_VERSIONS.join(", ")} (add the upstream iam_policy.json of a new release to components/addons/loadBalancerControllerReleases.ts)`,
    }),
    /** Defaults to `2`. */
    replicas,
    /** Defaults to 100m CPU / 256Mi requested, 500m / 512Mi limits. */
    resources: containerResources({ requests: { cpu: "100m", memory: "256Mi" }, limits: { cpu: "500m", memory: "512Mi" } }),
});

const metricsServerSchema = z.strictObject({
    /** Pinned `metrics-server` EKS community add-on version (`aws eks describe-addon-versions --addon-name metrics-server`). */
    version: addonVersion,
    /** Defaults to `2`. */
    replicas,
    /** Defaults to 100m CPU / 200Mi requested, 500m / 400Mi limits. */
    resources: containerResources({ requests: { cpu: "100m", memory: "200Mi" }, limits: { cpu: "500m", memory: "400Mi" } }),
});

/** `addons` in stack config. */
export const addonsSchema = z.strictObject({
    /** Amazon EBS CSI driver (EKS add-on) and the default `gp3` StorageClass. Required unless `autoMode` is on (which runs its own). */
    ebsCsiDriver: ebsCsiDriverSchema.optional(),
    /** AWS Load Balancer Controller (Helm chart): Services of type LoadBalancer and Ingresses. Required unless `autoMode` is on (which runs its own). */
    loadBalancerController: loadBalancerControllerSchema.optional(),
    /** Kubernetes Metrics Server (EKS community add-on): HPAs and `kubectl top`. */
    metricsServer: metricsServerSchema,
});

export type AddonsConfig = z.output<typeof addonsSchema>;
