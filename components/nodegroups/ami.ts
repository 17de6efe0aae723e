/**
 * EKS node AMI facts the node groups build with and the stack config validates against, and the
 * public SSM parameters that name each pinned release (the kinds' `releaseParameter`, which
 * `npm run preflight` asks SSM about). Pure.
 */
import { parseReleaseVersion } from "eks-platform-kernel";

/** Kubernetes minor versions from which EKS publishes no Amazon Linux 2 AMIs. */
export const FIRST_MINOR_WITHOUT_AL2 = 33;

/** AMI types of an EKS managed node group this platform supports. */
export const MANAGED_AMI_TYPES = [
    "AL2023_x86_64_STANDARD",
    "AL2023_ARM_64_STANDARD",
    "AL2023_x86_64_NVIDIA",
    "AL2_x86_64",
    "AL2_x86_64_GPU",
    "AL2_ARM_64",
] as const;

/** AMI types carrying the NVIDIA driver: their groups get the GPU label, taint and device plugin. */
export const GPU_AMI_TYPES: readonly string[] = ["AL2023_x86_64_NVIDIA", "AL2_x86_64_GPU"];

/**
 * The public SSM parameter holding the EKS-optimized AMI of one pinned release (never
 * `recommended`, which moves with every AMI release and would replace all nodes at a preview). Pure.
 */
export function amiSsmParameter(family: "AL2023" | "AL2", architecture: "x86_64" | "arm64", releaseVersion: string): string {
    const release = parseReleaseVersion(releaseVersion);
    if (!release) {
        throw new Error(`${releaseVersion} is not an EKS AMI release version`);
    }
    const { minor, date } = release;
    if (family === "AL2023") {
        return `/aws/service/eks/optimized-ami/${minor}/amazon-linux-2023/${architecture}/standard/amazon-eks-node-al2023-${architecture}-standard-${minor}-v${date}/image_id`;
    }
    return architecture === "x86_64"
        ? `/aws/service/eks/optimized-ami/${minor}/amazon-linux-2/amazon-eks-node-${minor}-v${date}/image_id`
        : `/aws/service/eks/optimized-ami/${minor}/amazon-linux-2-arm64/amazon-eks-arm64-node-${minor}-v${date}/image_id`;
}

/**
 * The SSM parameter of an EKS-optimized AMI release for a managed group's `amiType` (the EKS AMI
 * repository's parameter layout), `undefined` for types the layout does not cover here. Pure.
 */
export function amiTypeReleaseParameter(amiType: string, releaseVersion: string): string | undefined {
    const release = parseReleaseVersion(releaseVersion);
    if (!release) {
        return undefined;
    }
    const al2023 = /^AL2023_(x86_64|ARM_64)_(STANDARD|NVIDIA|NEURON)$/.exec(amiType);
    if (al2023) {
        const arch = al2023[1] === "ARM_64" ? "arm64" : "x86_64";
        const variant = al2023[2].toLowerCase();
        return `/aws/service/eks/optimized-ami/${release.minor}/amazon-linux-2023/${arch}/${variant}/amazon-eks-node-al2023-${arch}-${variant}-${release.minor}-v${release.date}/image_id`;
    }
    if (amiType === "AL2_x86_64" || amiType === "AL2_ARM_64") {
        return amiSsmParameter("AL2", amiType === "AL2_ARM_64" ? "arm64" : "x86_64", releaseVersion);
    }
    return undefined;
}
