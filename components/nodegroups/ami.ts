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

/** `1.34.7-20260512` → `{ minor: "1.34", patch: "1.34.7", date: "20260512" }`; undefined when malformed. Pure. */
export function parseReleaseVersion(release: string): { minor: string; patch: string; date: string } | undefined {
    const match = /^(1\.(\d{2}))\.\d+-(\d{8})$/.exec(release);
    return match ? { minor: match[1], patch: release.split("-")[0], date: match[3] } : undefined;
}

/** The numeric minor of `1.34` (34); NaN when malformed. Pure. */
export function minorOf(version: string): number {
    const match = /^1\.(\d+)$/.exec(version);
    return match ? Number(match[1]) : NaN;
}
