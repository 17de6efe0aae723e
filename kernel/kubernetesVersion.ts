/**
 * Kubernetes version strings, read by one parser wherever the platform meets them: a cluster's
 * minor (`1.34`), a Pod Security version label (`v1.34`), a release with its patch (`1.34.2`), an
 * EKS add-on build (`v1.34.0-eksbuild.2`) and an EKS AMI release (`1.34.7-20260512`). Each reader
 * below accepts exactly the shape its source writes; none parses the text again. Pure.
 */

/** A version as written: an optional `v`, `major.minor`, an optional `.patch`, and whatever follows. */
interface KubernetesVersion {
    /** Written with a leading `v`. */
    prefixed: boolean;
    major: number;
    minor: number;
    patch?: number;
    /** The digits as written: readers that refuse leading zeros, or want a two-digit minor, look here. */
    digits: { major: string; minor: string; patch?: string };
    /** What follows the version: `""`, `-20260512`, `-eksbuild.2`. */
    suffix: string;
}

const VERSION = /^(v?)(\d+)\.(\d+)(?:\.(\d+))?([^]*)$/;

/** Reads the version at the start of `text`; undefined when it does not start with `[v]major.minor`. Pure. */
export function parseKubernetesVersion(text: string): KubernetesVersion | undefined {
    const match = VERSION.exec(text);
    if (!match) {
        return undefined;
    }
    const [, v, major, minor, patch, suffix] = match;
    return {
        prefixed: v === "v",
        major: Number(major),
        minor: Number(minor),
        ...(patch !== undefined ? { patch: Number(patch) } : {}),
        digits: { major, minor, ...(patch !== undefined ? { patch } : {}) },
        suffix,
    };
}

/** `major.minor` as written, without the `v`: `1.34`. */
function minorText(version: KubernetesVersion): string {
    return `${version.digits.major}.${version.digits.minor}`;
}

/** The minor of a Kubernetes 1 minor version as a cluster names it (`1.34` → 34); NaN for anything else. Pure. */
export function kubernetesMinor(version: string): number {
    const parsed = parseKubernetesVersion(version);
    return parsed && !parsed.prefixed && parsed.digits.major === "1" && parsed.patch === undefined && parsed.suffix === ""
        ? parsed.minor
        : NaN;
}

/** A Kubernetes minor release, `1.25` → `{ major: 1, minor: 25 }`. */
export interface KubernetesRelease {
    major: number;
    minor: number;
}

/** `1.34` (or `v1.34`, `1.34.2`, surrounding spaces) → the release; `undefined` for anything else. Pure. */
export function parseRelease(value: unknown): KubernetesRelease | undefined {
    const parsed = typeof value === "string" ? parseKubernetesVersion(value.trim()) : undefined;
    return parsed && parsed.suffix === "" ? { major: parsed.major, minor: parsed.minor } : undefined;
}

/**
 * The minor of a Pod Security version label: `v1.N` with no leading zero (Pod Security
 * Admission's `api.ParseVersion`); `undefined` for anything else (`latest` is the caller's). Pure.
 */
export function podSecurityMinor(value: string): number | undefined {
    const parsed = parseKubernetesVersion(value);
    const canonical = parsed !== undefined && !/^0\d/.test(parsed.digits.minor);
    return parsed && canonical && parsed.prefixed && parsed.digits.major === "1" && parsed.patch === undefined && parsed.suffix === ""
        ? parsed.minor
        : undefined;
}

/**
 * The Kubernetes minor an EKS add-on build is for: `v1.34.0-eksbuild.2` → `1.34` (EKS names builds
 * `v<major>.<minor>.<…>`); `undefined` when the version is not written that way. Pure.
 */
export function addonKubernetesMinor(version: string): string | undefined {
    const parsed = parseKubernetesVersion(version);
    return parsed?.prefixed && (parsed.patch !== undefined || parsed.suffix.startsWith(".")) ? minorText(parsed) : undefined;
}

/** An EKS AMI release version: the Kubernetes minor and patch of its kubelet and the AMI's build date. */
interface AmiReleaseVersion {
    /** `1.34` */
    minor: string;
    /** `1.34.7` */
    patch: string;
    /** `20260512` */
    date: string;
}

/**
 * `1.34.7-20260512` (as `aws eks describe-nodegroup` and the AMI changelog print it) →
 * `{ minor: "1.34", patch: "1.34.7", date: "20260512" }`; undefined when malformed. Pure.
 */
export function parseReleaseVersion(release: string): AmiReleaseVersion | undefined {
    const parsed = parseKubernetesVersion(release);
    if (
        !parsed ||
        parsed.prefixed ||
        parsed.digits.major !== "1" ||
        parsed.digits.minor.length !== 2 ||
        parsed.digits.patch === undefined ||
        !/^-\d{8}$/.test(parsed.suffix)
    ) {
        return undefined;
    }
    return { minor: minorText(parsed), patch: `${minorText(parsed)}.${parsed.digits.patch}`, date: parsed.suffix.slice(1) };
}
