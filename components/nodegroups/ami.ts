/**
 * EKS node AMI facts the node groups build with and the stack config validates against. Pure.
 */

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
