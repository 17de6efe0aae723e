import {
    actionCovers,
    asArray,
    asRecord,
    asString,
    field,
    isAccountWideResource,
    isEveryResource,
    managedPolicyName,
    path,
    POLICY_WRITING_ACTIONS,
} from "eks-platform-kernel";
import { isUnknownValueError, Verdicts, violation } from "eks-platform-evaluation";
import { declareStackPolicy, Knobs } from "./declare";

/** Config of `app-role-least-privilege`. */
export interface AppRoleLeastPrivilegeConfig {
    /** AWS managed policies no application role may attach. Defaults to `BROAD_MANAGED_POLICIES`. */
    forbiddenManagedPolicies: string[];
    /** Namespaces whose roles are the platform's, not applications'. Defaults to `["kube-system"]`. */
    exemptNamespaces: string[];
}

/**
 * AWS managed policies that reach far beyond one application: full access to every service
 * (AdministratorAccess; PowerUserAccess, everything but most of IAM, so every role an
 * application could pass is within reach through the services), or IAM writes on `*`
 * (IAMFullAccess; AdministratorAccess-Amplify, whose statements create roles and put and attach
 * their policies on any resource).
 */
export const BROAD_MANAGED_POLICIES = ["AdministratorAccess", "PowerUserAccess", "IAMFullAccess", "AdministratorAccess-Amplify"];

const knobs: Knobs<AppRoleLeastPrivilegeConfig> = {
    forbiddenManagedPolicies: {
        type: "array",
        items: { type: "string" },
        default: BROAD_MANAGED_POLICIES,
        description: "Names of AWS managed policies (e.g. AdministratorAccess) that no application role may attach.",
    },
    exemptNamespaces: {
        type: "array",
        items: { type: "string" },
        default: ["kube-system"],
        description:
            "Namespaces of platform controllers: a role whose trust admits only these namespaces is not judged (a role whose trust names no namespace always is).",
    },
};

/** The service principal of EKS Pod Identity. */
const POD_IDENTITY = "pods.eks.amazonaws.com";

/** A policy document as a provider input: a JSON string or an object. */
function documentOf(raw: unknown): { statements: unknown[] } | { invalid: string } {
    let doc: unknown = raw;
    if (typeof raw === "string") {
        try {
            doc = JSON.parse(raw) as unknown;
        } catch (err) {
            return { invalid: (err as Error).message };
        }
    }
    const statements = field(doc, "Statement");
    return { statements: Array.isArray(statements) ? asArray(statements) : statements === undefined ? [] : [statements] };
}

const listOf = (value: unknown): unknown[] => (Array.isArray(value) ? asArray(value) : value === undefined ? [] : [value]);

/** True when a trust policy (JSON string or object) lets EKS Pod Identity assume the role. */
export function trustsPodIdentity(policy: unknown): boolean {
    const doc = documentOf(policy);
    if ("invalid" in doc) {
        return false;
    }
    return doc.statements.some(
        (s) => field(s, "Effect") === "Allow" && listOf(path(s, "Principal", "Service")).some((p) => p === POD_IDENTITY),
    );
}

/**
 * The namespaces a Pod Identity trust admits, from its `aws:RequestTag/kubernetes-namespace`
 * conditions (StringEquals or StringLike, every Allow statement); `undefined` when a statement
 * admits any namespace. Pure; reads through the SDK proxy.
 */
export function trustNamespaces(policy: unknown): string[] | undefined {
    const doc = documentOf(policy);
    if ("invalid" in doc) {
        return undefined;
    }
    const namespaces: string[] = [];
    for (const s of doc.statements) {
        if (field(s, "Effect") !== "Allow" || !listOf(path(s, "Principal", "Service")).some((p) => p === POD_IDENTITY)) {
            continue;
        }
        const pinned = ["StringEquals", "StringLike"].flatMap((op) =>
            listOf(path(s, "Condition", op, "aws:RequestTag/kubernetes-namespace")).filter((v): v is string => typeof v === "string"),
        );
        if (pinned.length === 0) {
            return undefined;
        }
        namespaces.push(...pinned);
    }
    return namespaces;
}

/** One broken rule in a statement: what it allows, why that is too much, and what to write instead. */
export interface Finding {
    what: string;
    why: string;
    fix: string;
}

const ADMIN_WHY =
    "every pod of the service account can then do anything the account allows: one compromised container is a compromised AWS account";
const IAM_WHY =
    "a wildcard over IAM actions lets the role change IAM itself, e.g. give itself or a role it can pass more permissions: privilege escalation from a pod";
const PASS_WHY =
    "the role can hand any role of the account, administrator roles included, to a service it starts: privilege escalation from a pod";
const PASS_SERVICE_WHY =
    "without iam:PassedToService the roles it may pass can go to any service that takes a role (a Lambda function, an EC2 instance, a CloudFormation stack the pod starts), which then acts with the passed role's permissions: privilege escalation from a pod";
const WRITE_WHY =
    "whoever may write IAM policies or trust on every role, user or policy of the account can attach AdministratorAccess to one it can use, itself included: privilege escalation from a pod";
const ASSUME_WHY =
    "the role can become every role whose trust admits this account, so its reach is no longer what its own policy says: privilege escalation from a pod";
const SERVICE_WHY =
    "every action of the service on every resource, deletions and resource policies included (s3:PutBucketPolicy can open a bucket to the internet): one compromised pod reaches all of that service's data in the account";
const NOT_RESOURCE_WHY =
    "NotResource in an Allow grants the actions on every resource but those listed, resources created later included: the role's reach grows with the account";

const NARROW_FIX = "list only the actions and resources the application needs, e.g. s3:GetObject on arn:aws:s3:::<bucket>/*";
const PASS_FIX =
    'name the roles it passes (arn:aws:iam::<account>:role/<name>) and the service they go to: Condition: { StringEquals: { "iam:PassedToService": "<service>.amazonaws.com" } }';
const WRITE_FIX =
    "leave IAM changes to the deploy pipeline; if the application must manage roles or policies, name them by an ARN prefix it owns (arn:aws:iam::<account>:role/<app>-*) and create them under a permissions boundary";
const ASSUME_FIX = "name the roles it assumes, arn:aws:iam::<account>:role/<name>";

/** Operators that pin a key to listed values: a negated or IfExists one lets a request without the key through. */
const PINNING_OPERATORS = new Set(["stringequals", "stringequalsignorecase", "stringlike"]);

/**
 * True when a statement's condition pins `iam:PassedToService` to named services (StringEquals,
 * StringEqualsIgnoreCase or StringLike, no IfExists, no value of wildcards only). Keys are
 * case-insensitive in IAM. Pure; reads through the SDK proxy.
 */
export function pinsPassedToService(statement: unknown): boolean {
    const condition = asRecord(field(statement, "Condition")) ?? {};
    return Object.keys(condition).some((operator) => {
        const block = asRecord(condition[operator]);
        const base = operator.replace(/^For(AnyValue|AllValues):/i, "").toLowerCase();
        if (!PINNING_OPERATORS.has(base) || block === undefined) {
            return false;
        }
        return Object.keys(block).some((key) => {
            const values = listOf(block[key]);
            return (
                key.toLowerCase() === "iam:passedtoservice" &&
                values.length > 0 &&
                values.every((v) => typeof v === "string" && !/^[*?]*$/.test(v.trim()))
            );
        });
    });
}

/**
 * What is too broad in one statement of a Pod Identity role's policy: `Allow` on every action
 * (`*`), `NotAction` or `NotResource` (everything but a list), IAM actions by wildcard (`iam:*`,
 * `iam:Pass*`), a service's every action on every resource (`s3:*` on `*`), `iam:PassRole` on
 * every role or without `iam:PassedToService`, an action that writes IAM policy or trust
 * (`POLICY_WRITING_ACTIONS`) or `sts:AssumeRole` on every role, user or policy of the account.
 * Actions are matched as IAM matches them (`*:PassRole` is iam:PassRole too). One finding per
 * action at most, the broadest. Pure; reads through the SDK proxy (unknown values throw).
 */
export function statementFindings(statement: unknown): Finding[] {
    if (field(statement, "Effect") !== "Allow") {
        return [];
    }
    const findings: Finding[] = [];
    const resources = listOf(field(statement, "Resource"))
        .filter((r): r is string => typeof r === "string")
        .map((r) => r.trim());
    const accountWide = resources.find(isAccountWideResource);
    const every = resources.find(isEveryResource);
    const notAction = field(statement, "NotAction");
    if (notAction !== undefined) {
        findings.push({ what: `allows NotAction ${JSON.stringify(notAction)}, i.e. every other action`, why: ADMIN_WHY, fix: NARROW_FIX });
    }
    const notResource = field(statement, "NotResource");
    if (notResource !== undefined) {
        findings.push({
            what: `allows its actions on NotResource ${JSON.stringify(notResource)}, i.e. every other resource`,
            why: NOT_RESOURCE_WHY,
            fix: "list the resources it needs under Resource instead",
        });
    }
    for (const raw of listOf(field(statement, "Action"))) {
        const action = typeof raw === "string" ? raw.trim() : "";
        const [service, name = ""] = action.toLowerCase().split(":", 2);
        const on = (resource: string) => `allows "${action}" on Resource "${resource}"`;
        if (action === "*" || action === "*:*") {
            findings.push({ what: `allows action "${action}"`, why: ADMIN_WHY, fix: NARROW_FIX });
        } else if (service === "iam" && /[*?]/.test(name)) {
            findings.push({ what: `allows IAM actions by wildcard ("${action}")`, why: IAM_WHY, fix: NARROW_FIX });
        } else if (name === "*" && every !== undefined) {
            findings.push({ what: `${on(every)}: every ${service} action on every resource`, why: SERVICE_WHY, fix: NARROW_FIX });
        } else if (actionCovers(action, "iam:PassRole") && accountWide !== undefined) {
            findings.push({ what: on(accountWide), why: PASS_WHY, fix: PASS_FIX });
        } else if (actionCovers(action, "iam:PassRole") && !pinsPassedToService(statement)) {
            findings.push({
                what: `allows "${action}" on Resource ${JSON.stringify(resources.length === 1 ? resources[0] : resources)} without an iam:PassedToService condition`,
                why: PASS_SERVICE_WHY,
                fix: PASS_FIX,
            });
        } else if (POLICY_WRITING_ACTIONS.some((a) => actionCovers(action, a)) && accountWide !== undefined) {
            findings.push({ what: `${on(accountWide)}, which writes IAM permissions or trust`, why: WRITE_WHY, fix: WRITE_FIX });
        } else if (actionCovers(action, "sts:AssumeRole") && accountWide !== undefined) {
            findings.push({ what: on(accountWide), why: ASSUME_WHY, fix: ASSUME_FIX });
        }
    }
    return findings;
}

/** Everything too broad in a policy document (JSON string or object); a malformed one counts. Pure. */
function documentFindings(raw: unknown): unknown[] {
    if (raw === undefined) {
        return [];
    }
    const doc = documentOf(raw);
    return "invalid" in doc ? [doc.invalid] : doc.statements.flatMap(statementFindings);
}

/** The forbidden managed policy an ARN names, if any. Pure. */
function forbiddenIn(arn: unknown, forbidden: ReadonlySet<string>): string[] {
    const policy = managedPolicyName(arn);
    return policy !== undefined && forbidden.has(policy) ? [policy] : [];
}

/** True when a value is known and `findings` finds nothing in it (reading it may still hit an unknown). */
function isClean<T>(value: Read<T>, findings: (v: T) => unknown[]): boolean {
    if ("unknown" in value) {
        return false;
    }
    const found = read("", () => findings(value.value));
    return "value" in found && found.value.length === 0;
}

/** A value read through the SDK proxy, or the property path that is unknown at preview. */
type Read<T> = { value: T } | { unknown: string[] };

/** Reads without recording anything: whether an unknown value matters is decided later, per role. */
function read<T>(subject: string, fn: () => T): Read<T> {
    try {
        return { value: fn() };
    } catch (err) {
        if (isUnknownValueError(err)) {
            return { unknown: [subject, ...err.props.map(String)] };
        }
        throw err;
    }
}

/** A policy document or managed policy ARN, and the role name it belongs to (as read). */
interface Grant<T> {
    role: Read<string | undefined>;
    source: string;
    content: () => T;
}

/** One grant per item of a list property, or one for the whole list when the list is unknown. */
function listGrants(
    role: Read<string | undefined>,
    subject: string,
    props: unknown,
    key: string,
    pick: (item: unknown) => unknown,
): Grant<unknown>[] {
    const list = read(subject, () => asArray(field(props, key)));
    if ("unknown" in list) {
        return [{ role, source: `${subject} ${key}`, content: () => field(props, key) }];
    }
    return list.value.map((item, i) => ({ role, source: `${subject} ${key}[${i}]`, content: () => pick(item) }));
}

/**
 * Roles assumed through EKS Pod Identity — the roles of application service accounts and of
 * platform controllers — close the usual IAM escalation paths (`statementFindings`) and attach
 * none of the forbidden managed policies. Documents are
 * linked to roles by name (static at preview in this program); one whose role or content is
 * unknown at preview leaves the roles it may belong to undecided, never passed.
 */
export const appRoleLeastPrivilege = declareStackPolicy<AppRoleLeastPrivilegeConfig>({
    name: "app-role-least-privilege",
    description:
        "IAM roles assumed through EKS Pod Identity grant no wildcard admin, no way to write IAM or pass or assume every role, no service wildcard on every resource and no broad managed policy.",
    enforcementLevel: "mandatory",
    config: knobs,
    docs: {
        requires:
            "application roles (EKS Pod Identity) allow no action `*`, no `NotAction`/`NotResource`, no IAM action by wildcard, no `iam:PassRole` on every role or without `iam:PassedToService`, no IAM policy or trust writes or `sts:AssumeRole` on every role, no service wildcard on `*`, and attach no broad managed policy (AdministratorAccess, PowerUserAccess, IAMFullAccess…)",
        checks: "IAM roles trusted by `pods.eks.amazonaws.com` (EKS Pod Identity) whose trust admits a namespace outside `exemptNamespaces` (or names none; a trust admitting kube-system and an application namespace is judged): in every `Allow` statement, no action `*` or `*:*`, no `NotAction` and no `NotResource`, no IAM action by wildcard (`iam:*`, `iam:Pass*`, any case), no service's every action (`s3:*`) on every resource (`*`, `arn:aws:s3:::*`), no `iam:PassRole` on an account-wide resource (`*`, `arn:aws:iam::*:role/*`, `arn:aws:iam::<account>:role/*`: no fixed name before the first wildcard) nor without a `StringEquals`/`StringLike` condition naming services in `iam:PassedToService`, no policy- or trust-writing IAM action (`iam:CreateRole`, `PutRolePolicy`, `AttachRolePolicy`, `UpdateAssumeRolePolicy`, `CreatePolicyVersion`, `SetDefaultPolicyVersion`, `PutUserPolicy`, `AttachUserPolicy`, permissions boundaries, access keys, login profiles, group membership and policies) and no `sts:AssumeRole` on an account-wide resource, each named by its document, statement (Sid or index), action and resource; no attached managed policy in `forbiddenManagedPolicies`; documents from `RolePolicy`, `RolePolicyAttachment`, `RolePolicyAttachmentsExclusive` and the role's own `inlinePolicies`/`managedPolicyArns`, linked by role name (see below)",
        knobs: {
            forbiddenManagedPolicies:
                "by policy name, any partition and path; the default holds the AWS managed policies that grant every service or IAM writes on `*`",
        },
    },
    validateStack: (args, reportViolation, config) => {
        const forbidden = new Set(config.forbiddenManagedPolicies);
        const exempt = new Set(config.exemptNamespaces);
        const verdicts = new Verdicts();
        const podRoles = new Map<string, { urn: string }>();
        const unknownRoles: string[][] = [];
        const documents: Grant<unknown>[] = [];
        const attachments: Grant<unknown>[] = [];

        for (const r of args.resources) {
            switch (r.type) {
                case "aws:iam/role:Role": {
                    const trust = read(`Role ${r.name}`, () => field(r.props, "assumeRolePolicy"));
                    const name = read(`Role ${r.name}`, () => asString(field(r.props, "name")));
                    if ("unknown" in trust) {
                        // It may be a Pod Identity role: nothing about it can be decided.
                        unknownRoles.push(trust.unknown);
                        break;
                    }
                    if (!trustsPodIdentity(trust.value)) {
                        break;
                    }
                    const namespaces = read(`Role ${r.name}`, () => trustNamespaces(trust.value));
                    if ("unknown" in namespaces) {
                        unknownRoles.push(namespaces.unknown);
                        break;
                    }
                    if (namespaces.value !== undefined && namespaces.value.every((ns) => exempt.has(ns))) {
                        // A platform controller's role (e.g. kube-system): not an application's.
                        break;
                    }
                    if ("unknown" in name || name.value === undefined) {
                        // Auto-named: its attachments reference `role.name`, unknown until apply.
                        unknownRoles.push([r.name, "name"]);
                        break;
                    }
                    podRoles.set(name.value, { urn: r.urn });
                    const role = { value: name.value };
                    documents.push(...listGrants(role, `Role ${r.name}`, r.props, "inlinePolicies", (p) => field(p, "policy")));
                    attachments.push(...listGrants(role, `Role ${r.name}`, r.props, "managedPolicyArns", (arn) => arn));
                    break;
                }
                case "aws:iam/rolePolicy:RolePolicy":
                    documents.push({
                        role: read(`RolePolicy ${r.name}`, () => asString(field(r.props, "role"))),
                        source: `RolePolicy ${r.name}`,
                        content: () => field(r.props, "policy"),
                    });
                    break;
                case "aws:iam/rolePolicyAttachment:RolePolicyAttachment":
                    attachments.push({
                        role: read(`RolePolicyAttachment ${r.name}`, () => asString(field(r.props, "role"))),
                        source: `RolePolicyAttachment ${r.name}`,
                        content: () => field(r.props, "policyArn"),
                    });
                    break;
                case "aws:iam/rolePolicyAttachmentsExclusive:RolePolicyAttachmentsExclusive": {
                    const subject = `RolePolicyAttachmentsExclusive ${r.name}`;
                    const role = read(subject, () => asString(field(r.props, "roleName")));
                    attachments.push(...listGrants(role, subject, r.props, "policyArns", (arn) => arn));
                    break;
                }
            }
        }

        // A grant whose role is unknown may belong to any application role: it matters unless its
        // content is known and grants nothing too broad.
        const unlinked = [
            ...documents.filter((g) => "unknown" in g.role && !isClean(read(g.source, g.content), documentFindings)),
            ...attachments.filter((g) => "unknown" in g.role && !isClean(read(g.source, g.content), (arn) => forbiddenIn(arn, forbidden))),
        ].map((g) => (g.role as { unknown: string[] }).unknown);
        const ofRole = (grants: Grant<unknown>[], name: string) => grants.filter((g) => "value" in g.role && g.role.value === name);
        for (const [name, role] of podRoles) {
            verdicts.judge(`Pod Identity role ${name}`, () => {
                const undecided: string[][] = [...unlinked];
                const report = (what: string, why: string, fix: string) =>
                    reportViolation(violation(`IAM role ${name} (assumed by pods through EKS Pod Identity) ${what}`, why, fix), role.urn);
                for (const a of ofRole(attachments, name)) {
                    const arn = read(a.source, a.content);
                    if ("unknown" in arn) {
                        undecided.push(arn.unknown);
                        continue;
                    }
                    for (const policy of forbiddenIn(arn.value, forbidden)) {
                        report(
                            `attaches the AWS managed policy ${policy} (${a.source})`,
                            `${policy} reaches far beyond one application: every pod of the service account could take over the account or its IAM`,
                            "detach it and grant the actions the application needs as statements (namespaces.<ns>.serviceAccounts.<name>.statements)",
                        );
                    }
                }
                for (const d of ofRole(documents, name)) {
                    const raw = read(d.source, d.content);
                    if ("unknown" in raw) {
                        undecided.push(raw.unknown);
                        continue;
                    }
                    if (raw.value === undefined) {
                        continue;
                    }
                    const doc = documentOf(raw.value);
                    if ("invalid" in doc) {
                        report(
                            `has a policy document that is not JSON (${d.source}: ${doc.invalid})`,
                            "IAM refuses the document, so `pulumi up` fails when it reaches the role",
                            "write the policy as JSON (JSON.stringify of a policy object)",
                        );
                        continue;
                    }
                    doc.statements.forEach((s, i) => {
                        const findings = read(`${d.source}`, () => statementFindings(s));
                        if ("unknown" in findings) {
                            undecided.push(findings.unknown);
                            return;
                        }
                        const sid = read(d.source, () => asString(field(s, "Sid")));
                        const label = "value" in sid && sid.value ? `statement ${sid.value}` : `statement ${i}`;
                        for (const f of findings.value) {
                            report(`${f.what} (${d.source}, ${label})`, f.why, f.fix);
                        }
                    });
                }
                if (undecided.length > 0) {
                    verdicts.leaveUndecided(`Pod Identity role ${name}`, undecided[0]);
                }
            });
        }
        for (const unknown of unknownRoles) {
            verdicts.judge(`role ${unknown[0]}`, () => verdicts.leaveUndecided(`${unknown[0]} (maybe a Pod Identity role)`, unknown));
        }
        verdicts.finish();
        if (verdicts.evaluated === 0) {
            args.notApplicable("no IAM role trusted by pods.eks.amazonaws.com (EKS Pod Identity) in this stack: nothing was checked");
        }
    },
});
