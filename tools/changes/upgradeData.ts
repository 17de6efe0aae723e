/**
 * What a Kubernetes upgrade plan needs to know that no render holds, as data with its source and
 * the date it was read. Refresh it when a new minor ships on EKS or a Karpenter release changes
 * its matrix: re-read each source named here and update the rows (test/tools/changes/upgrade.test.ts checks
 * the rows' shape and that each minor's dates follow EKS's 14 + 12 month lifecycle).
 */

/** One Kubernetes minor on EKS (dates UTC, `YYYY-MM-DD`). */
export interface EksVersionSupport {
    minor: string;
    eksRelease: string;
    endOfStandardSupport: string;
    endOfExtendedSupport: string;
    source: string;
}

const EKS_DOC =
    "EKS User Guide, Understand the Kubernetes version lifecycle on EKS, Amazon EKS Kubernetes release calendar (awsdocs/amazon-eks-user-guide latest/ug/versioning/kubernetes-versions.adoc @ 013856044148), read 2026-12-01";

/**
 * The EKS release calendar. 1.35 is not in the stored copy of the AWS page; its dates are
 * endoflife.date's (amazon-eks, read 2026-12-01): confirm with `aws eks describe-cluster-versions`.
 */
export const EKS_RELEASE_CALENDAR: readonly EksVersionSupport[] = [
    { minor: "1.29", eksRelease: "2024-01-23", endOfStandardSupport: "2025-03-23", endOfExtendedSupport: "2026-03-23", source: EKS_DOC },
    { minor: "1.30", eksRelease: "2024-05-23", endOfStandardSupport: "2025-07-23", endOfExtendedSupport: "2026-07-23", source: EKS_DOC },
    { minor: "1.31", eksRelease: "2024-09-26", endOfStandardSupport: "2025-11-26", endOfExtendedSupport: "2026-11-26", source: EKS_DOC },
    { minor: "1.32", eksRelease: "2025-01-23", endOfStandardSupport: "2026-03-23", endOfExtendedSupport: "2027-03-23", source: EKS_DOC },
    { minor: "1.33", eksRelease: "2025-05-29", endOfStandardSupport: "2026-07-29", endOfExtendedSupport: "2027-07-29", source: EKS_DOC },
    { minor: "1.34", eksRelease: "2025-10-02", endOfStandardSupport: "2026-12-02", endOfExtendedSupport: "2027-12-02", source: EKS_DOC },
    {
        minor: "1.35",
        eksRelease: "2026-01-28",
        endOfStandardSupport: "2027-03-27",
        endOfExtendedSupport: "2028-03-27",
        source: "endoflife.date/amazon-eks, read 2026-12-01 (not yet in the stored AWS page)",
    },
];

/**
 * What a cluster costs per hour in each support tier (Amazon EKS pricing, aws.amazon.com/eks/pricing,
 * read 2026-12-01): extended support is billed from the first day after the end of standard support.
 */
export const CLUSTER_HOURLY_USD = { standard: 0.1, extended: 0.6 } as const;

/**
 * The oldest Karpenter release that supports each Kubernetes minor (karpenter-provider-aws
 * website/content/en/v1.14/upgrading/compatibility.md, Compatibility Matrix, @ 1d927085d, v1.14.1).
 */
export const KARPENTER_MINIMUM: Readonly<Record<string, string>> = {
    "1.30": "0.37",
    "1.31": "1.0.5",
    "1.32": "1.2",
    "1.33": "1.5",
    "1.34": "1.6",
    "1.35": "1.9",
    "1.36": "1.13",
};
