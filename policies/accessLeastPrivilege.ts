import { asArray, asRecord, asString, field, inputScope, isUnknownSentinel, path, peek } from "eks-platform-kernel";
import { Verdicts, violation } from "eks-platform-evaluation";
import { declareStackPolicy, Knobs } from "./declare";

/** Config of `access-least-privilege`. */
export interface AccessLeastPrivilegeConfig {
    /** Principal ARN patterns (`*` matches any run of characters) that are namespace teams. Defaults to `[]`. */
    namespaceTeamPrincipals: string[];
}

const knobs: Knobs<AccessLeastPrivilegeConfig> = {
    namespaceTeamPrincipals: {
        type: "array",
        items: { type: "string" },
        default: [],
        description:
            "IAM principal ARN patterns (* matches any run of characters) of namespace teams, besides access entries tagged platform/access-scope: namespace.",
    },
};

const ENTRY = "aws:eks/accessEntry:AccessEntry";
const ASSOCIATION = "aws:eks/accessPolicyAssociation:AccessPolicyAssociation";
const COMPONENT = "eks:index:Cluster";
/** The tag `components/access.ts` puts on every access entry it creates. */
export const SCOPE_TAG = "platform/access-scope";
// Kubernetes groups that bypass RBAC altogether.
const ADMIN_GROUPS = ["system:masters"];
/**
 * EKS access policies that, cluster-wide, reach beyond a team's namespaces, and what they reach
 * there (EKS User Guide, "Review access policy permissions"). AmazonEKSAdminViewPolicy only reads,
 * but it reads Secrets: every other team's credentials, and the tokens of service accounts that
 * may do more than the team.
 */
const BROAD_POLICIES: Readonly<Record<string, string>> = {
    AmazonEKSClusterAdminPolicy: "do almost anything",
    AmazonEKSAdminPolicy: "do almost anything",
    AmazonEKSEditPolicy: "change workloads and read Secrets",
    AmazonEKSAdminViewPolicy: "read every Secret (other teams' credentials and service account tokens included)",
};

/** `arn:aws:eks::aws:cluster-access-policy/AmazonEKSEditPolicy` → `AmazonEKSEditPolicy` (any partition). */
export function accessPolicyName(arn: unknown): string | undefined {
    const match = typeof arn === "string" ? /^arn:aws[a-z-]*:eks::aws:cluster-access-policy\/([A-Za-z0-9]+)$/.exec(arn.trim()) : null;
    return match ? match[1] : undefined;
}

/** An ARN pattern as a regular expression: `*` matches any run of characters, everything else itself. */
export function arnPattern(pattern: string): RegExp {
    const body = pattern
        .split("*")
        .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
        .join(".*");
    return new RegExp(`^${body}$`, "s");
}

type ScopeTag = "namespace" | "other" | "unknown";

/** The `platform/access-scope` tag of an entry, read past the proxy: an unknown tag is not an error until it matters. */
function scopeTagOf(entry: unknown): ScopeTag {
    const tags = peek(entry, "tags");
    const value = isUnknownSentinel(tags) ? tags : peek(tags, SCOPE_TAG);
    return isUnknownSentinel(value) ? "unknown" : value === "namespace" ? "namespace" : "other";
}

/** An entry's or association's `principalArn`: the ARN, `unknown` at preview, or `undefined` when unset. */
function principalOf(obj: unknown): string | { unknown: true } | undefined {
    const raw = peek(obj, "principalArn");
    if (isUnknownSentinel(raw)) {
        return { unknown: true };
    }
    return typeof raw === "string" && raw !== "" ? raw : undefined;
}

type TeamStatus = { kind: "team"; reason: string } | { kind: "other" } | { kind: "undecided"; path: string[] };

/** Which principals are namespace teams: by their access entry's tag, or by the configured ARN patterns. */
class Teams {
    private readonly tagged = new Set<string>();
    private readonly unknownTag = new Map<string, string>(); // ARN → entry
    /** Entries that are (or may be) a team's, with an ARN unknown at preview. */
    private readonly unlinked: string[] = [];

    constructor(private readonly patterns: { pattern: string; re: RegExp }[]) {}

    addEntry(subject: string, entry: unknown): void {
        const tag = scopeTagOf(entry);
        const arn = principalOf(entry);
        if (arn === undefined) {
            return;
        }
        if (typeof arn !== "string") {
            if (tag !== "other") {
                this.unlinked.push(subject);
            }
            return;
        }
        if (tag === "namespace") {
            this.tagged.add(arn);
        } else if (tag === "unknown") {
            this.unknownTag.set(arn, subject);
        }
    }

    /** Whether the principal of `subject` is a namespace team. */
    status(subject: string, arn: string | { unknown: true } | undefined): TeamStatus {
        if (arn === undefined) {
            return { kind: "other" };
        }
        if (typeof arn !== "string") {
            // Unknown at preview: it may be any tagged entry's, or match a pattern.
            const couldBe = this.patterns.length > 0 || this.tagged.size > 0 || this.unknownTag.size > 0 || this.unlinked.length > 0;
            return couldBe ? { kind: "undecided", path: [subject, "principalArn"] } : { kind: "other" };
        }
        if (this.tagged.has(arn)) {
            return { kind: "team", reason: `its access entry is tagged ${SCOPE_TAG}: namespace` };
        }
        const match = this.patterns.find((p) => p.re.test(arn));
        if (match) {
            return { kind: "team", reason: `it matches namespaceTeamPrincipals pattern "${match.pattern}"` };
        }
        const entry = this.unknownTag.get(arn);
        if (entry !== undefined) {
            return { kind: "undecided", path: [entry, "tags", SCOPE_TAG] };
        }
        if (this.unlinked.length > 0) {
            // A (possibly) namespace-tagged entry whose ARN is unknown may be this principal's.
            return { kind: "undecided", path: [this.unlinked[0], "principalArn"] };
        }
        return { kind: "other" };
    }
}

const GROUPS_WHY =
    "system:masters bypasses RBAC and every authorization webhook, shows in no RoleBinding and cannot be narrowed or revoked inside the cluster: whoever can assume the principal is permanently cluster root";
const GROUPS_FIX =
    "remove system:masters from kubernetesGroups; give cluster administrators AmazonEKSClusterAdminPolicy through an access policy association, and others a group bound to a narrower (Cluster)Role";

/**
 * EKS access entries map no principal to `system:masters`, and no namespace team gets an admin
 * or edit access policy cluster-wide. Entries and associations are linked by `principalArn`
 * (static at preview: the program passes literal ARNs from config).
 */
export const accessLeastPrivilege = declareStackPolicy<AccessLeastPrivilegeConfig>({
    name: "access-least-privilege",
    description:
        "EKS access entries grant no system:masters, and namespace teams get no admin, edit or admin-view access policy cluster-wide.",
    enforcementLevel: "mandatory",
    config: knobs,
    docs: {
        requires: "no `system:masters` group; no cluster-wide admin/edit/admin-view (Secrets) for a namespace team",
        checks: "no EKS access entry (`aws.eks.AccessEntry`, or in `eks:index:Cluster` `accessEntries`) lists `system:masters` in `kubernetesGroups`; no namespace team gets AmazonEKSClusterAdminPolicy, AmazonEKSAdminPolicy, AmazonEKSEditPolicy or AmazonEKSAdminViewPolicy (it reads Secrets) with `accessScope.type: cluster`; entries and associations linked by `principalArn` (see below)",
        knobs: { namespaceTeamPrincipals: "ARN patterns, `*` matches any run of characters" },
    },
    validateStack: (args, reportViolation, config) => {
        const teams = new Teams(config.namespaceTeamPrincipals.map((pattern) => ({ pattern, re: arnPattern(pattern) })));
        const verdicts = new Verdicts();
        const entries: { name: string; urn: string; props: unknown }[] = [];
        const associations: { name: string; urn: string; props: unknown }[] = [];
        const inline: { subject: string; urn: string; entry: unknown }[] = [];
        for (const r of args.resources) {
            switch (r.type) {
                case ENTRY:
                    teams.addEntry(`AccessEntry ${r.name}`, r.props);
                    entries.push({ name: r.name, urn: r.urn, props: r.props });
                    break;
                case ASSOCIATION:
                    associations.push({ name: r.name, urn: r.urn, props: r.props });
                    break;
                case COMPONENT:
                    verdicts.read(`EKS cluster ${r.name} accessEntries`, () => {
                        const map = asRecord(field(r.props, "accessEntries"));
                        for (const key of map ? Object.keys(map) : []) {
                            const subject = `EKS cluster ${r.name} accessEntries.${key}`;
                            const entry = map?.[key];
                            teams.addEntry(subject, entry);
                            inline.push({ subject, urn: r.urn, entry });
                        }
                    });
                    break;
            }
        }

        const describe = (principal: unknown) => {
            const arn = principalOf(principal);
            return typeof arn === "string" ? ` (${arn})` : "";
        };
        const judgeGroups = (subject: string, urn: string, entry: unknown) =>
            verdicts.judge(`${subject} kubernetesGroups`, () => {
                const groups = asArray(field(entry, "kubernetesGroups")).map((g) => (typeof g === "string" ? g.trim() : g));
                const admin = ADMIN_GROUPS.filter((g) => groups.includes(g));
                if (admin.length > 0) {
                    reportViolation(
                        violation(
                            `${subject}${describe(entry)} maps its principal to the Kubernetes group ${admin.join(", ")}`,
                            GROUPS_WHY,
                            GROUPS_FIX,
                        ),
                        urn,
                    );
                }
            });
        const judgeGrant = (subject: string, urn: string, readGrant: () => unknown, principal: unknown, ownTag?: ScopeTag) =>
            verdicts.judge(subject, () => {
                const grant = readGrant();
                const scope = asString(path(grant, "accessScope", "type"));
                if (scope?.trim().toLowerCase() !== "cluster") {
                    return;
                }
                const policy = accessPolicyName(field(grant, "policyArn"));
                if (policy === undefined || !Object.hasOwn(BROAD_POLICIES, policy)) {
                    return;
                }
                const status: TeamStatus =
                    ownTag === "namespace"
                        ? { kind: "team", reason: `its access entry is tagged ${SCOPE_TAG}: namespace` }
                        : teams.status(subject, principalOf(principal));
                if (status.kind === "undecided") {
                    // A cluster-wide grant whose principal may be a namespace team.
                    verdicts.leaveUndecided(subject, status.path);
                    return;
                }
                if (status.kind === "other") {
                    return;
                }
                const reach = BROAD_POLICIES[policy];
                reportViolation(
                    violation(
                        `${subject}${describe(principal)} grants ${policy} cluster-wide to a namespace team (${status.reason})`,
                        `the team can then ${reach} in every namespace, other teams' and kube-system included: one leaked team credential or bad deploy reaches the whole cluster`,
                        `scope it to the team's namespaces (accessScope: { type: "namespace", namespaces: [...] }), e.g. list the principal under the namespaces' editors instead of access.admins`,
                    ),
                    urn,
                );
            });

        for (const e of entries) {
            judgeGroups(`AccessEntry ${e.name}`, e.urn, e.props);
        }
        for (const a of associations) {
            judgeGrant(`AccessPolicyAssociation ${a.name}`, a.urn, () => a.props, a.props);
        }
        for (const e of inline) {
            judgeGroups(e.subject, e.urn, e.entry);
            const ownTag = scopeTagOf(e.entry);
            const policies = verdicts.read(`${e.subject}.accessPolicies`, () => asRecord(field(e.entry, "accessPolicies")));
            for (const key of policies ? Object.keys(policies) : []) {
                judgeGrant(`${e.subject}.accessPolicies.${key}`, e.urn, () => policies?.[key], e.entry, ownTag);
            }
        }
        verdicts.finish();
        if (verdicts.evaluated === 0) {
            args.notApplicable(`no EKS access entry or access policy association ${inputScope(args.stackTags)}: nothing was checked`);
        }
    },
});
