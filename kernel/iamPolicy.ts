/**
 * Facts of the IAM policy language, shared by the stack config (service-account statements) and
 * the pack (`app-role-least-privilege`): the condition operators IAM accepts, the size it allows
 * a role's inline policies, the actions that write IAM policy or trust, what counts as a
 * resource wide enough to reach every role or policy of an account, managed policy ARNs and the
 * stable key of each (the program's Pod Identity roles name their attachments by it), and a
 * statement that is administrator access. Pure; only `policyArnKey` throws, on what is no
 * managed policy ARN.
 */

/**
 * The condition operators of the IAM policy language, without qualifiers (IAM User Guide, "IAM
 * JSON policy elements: Condition operators",
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_condition_operators.html).
 */
export const CONDITION_OPERATORS = [
    "StringEquals",
    "StringNotEquals",
    "StringEqualsIgnoreCase",
    "StringNotEqualsIgnoreCase",
    "StringLike",
    "StringNotLike",
    "NumericEquals",
    "NumericNotEquals",
    "NumericLessThan",
    "NumericLessThanEquals",
    "NumericGreaterThan",
    "NumericGreaterThanEquals",
    "DateEquals",
    "DateNotEquals",
    "DateLessThan",
    "DateLessThanEquals",
    "DateGreaterThan",
    "DateGreaterThanEquals",
    "Bool",
    "BinaryEquals",
    "IpAddress",
    "NotIpAddress",
    "ArnEquals",
    "ArnLike",
    "ArnNotEquals",
    "ArnNotLike",
    "Null",
] as const;

const OPERATORS = new Set<string>(CONDITION_OPERATORS);
const SET_QUALIFIERS = ["ForAnyValue:", "ForAllValues:"];
const IF_EXISTS = "IfExists";

/**
 * What is wrong with a condition operator as written, or `undefined` when IAM accepts it: one of
 * `CONDITION_OPERATORS`, optionally with the `IfExists` suffix (any operator but `Null`) and the
 * `ForAnyValue:` or `ForAllValues:` set qualifier (same page, "Multivalued context keys"). Pure.
 */
export function conditionOperatorProblem(operator: string): string | undefined {
    const qualifier = SET_QUALIFIERS.find((q) => operator.startsWith(q)) ?? "";
    const rest = operator.slice(qualifier.length);
    const base = rest.endsWith(IF_EXISTS) ? rest.slice(0, -IF_EXISTS.length) : rest;
    if (OPERATORS.has(base)) {
        if (base === "Null" && rest !== base) {
            return "Null takes no IfExists suffix (it is itself the check that a key exists)";
        }
        if (base === "Null" && qualifier !== "") {
            return `Null takes no ${qualifier} qualifier (it tests whether the key is present, not its values)`;
        }
        return undefined;
    }
    const spelt = CONDITION_OPERATORS.find((o) => o.toLowerCase() === base.toLowerCase());
    const hint = spelt
        ? `write it as ${qualifier}${spelt}${rest === base ? "" : IF_EXISTS}`
        : `use one of ${CONDITION_OPERATORS.join(", ")}`;
    return `is not an IAM condition operator: ${hint}, optionally with the IfExists suffix or a ForAnyValue:/ForAllValues: qualifier`;
}

/**
 * IAM's limit on the inline policies of one role, together, in characters, white space not
 * counted (IAM User Guide, "IAM and AWS STS quotas": "Role policy size cannot exceed 10,240
 * characters", https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_iam-quotas.html).
 * Past it `PutRolePolicy` fails with LimitExceeded at `pulumi up`; a preview never calls IAM.
 */
export const ROLE_INLINE_POLICY_LIMIT = 10_240;

/** IAM's limit on one managed policy, counted the same way ("Managed policy size cannot exceed 6,144 characters", the same page). */
export const MANAGED_POLICY_LIMIT = 6_144;

/** A policy document's size as IAM counts it: its JSON without white space (inside strings too, as IAM does). Pure. */
export function policySize(document: unknown): number {
    const json = typeof document === "string" ? document : (JSON.stringify(document) ?? "");
    return json.replace(/\s/g, "").length;
}

/**
 * IAM actions that write permissions or trust: whoever may call them on a role, user, group or
 * policy of the account can grant itself anything (the IAM privilege-escalation paths Rhino
 * Security Labs catalogued, "AWS IAM Privilege Escalation – Methods and Mitigation", 2018, and
 * the permissions-boundary and Deny-removing variants). `iam:PassRole` is judged on its own.
 */
export const POLICY_WRITING_ACTIONS = [
    "iam:CreateRole",
    "iam:PutRolePolicy",
    "iam:AttachRolePolicy",
    "iam:DeleteRolePolicy",
    "iam:DetachRolePolicy",
    "iam:UpdateAssumeRolePolicy",
    "iam:PutRolePermissionsBoundary",
    "iam:DeleteRolePermissionsBoundary",
    "iam:CreatePolicy",
    "iam:CreatePolicyVersion",
    "iam:SetDefaultPolicyVersion",
    "iam:CreateUser",
    "iam:PutUserPolicy",
    "iam:AttachUserPolicy",
    "iam:PutUserPermissionsBoundary",
    "iam:DeleteUserPermissionsBoundary",
    "iam:CreateAccessKey",
    "iam:CreateLoginProfile",
    "iam:UpdateLoginProfile",
    "iam:AddUserToGroup",
    "iam:PutGroupPolicy",
    "iam:AttachGroupPolicy",
] as const;

/**
 * True when an action pattern of a statement (`s3:Get*`, `iam:PutRolePolicy`) covers `action`:
 * `*` matches any run of characters, `?` one, case-insensitively, as IAM matches actions. Pure.
 */
export function actionCovers(pattern: string, action: string): boolean {
    const body = pattern
        .trim()
        .split("")
        .map((c) => (c === "*" ? ".*" : c === "?" ? "." : c.replace(/[.+^${}()|[\]\\]/g, "\\$&")))
        .join("");
    return new RegExp(`^${body}$`, "is").test(action);
}

const wild = (s: string) => /[*?]/.test(s);

/** An ARN's parts, `arn:<partition>:<service>:<region>:<account>:<resource>`, or `undefined`. */
function arnParts(resource: string): { partition: string; service: string; account: string; name: string } | undefined {
    const parts = resource.split(":");
    if (parts.length < 6 || parts[0] !== "arn") {
        return undefined;
    }
    return { partition: parts[1], service: parts[2], account: parts[4], name: parts.slice(5).join(":") };
}

/**
 * True when a `Resource` entry reaches every IAM role, user or policy of an account, or of every
 * account. IAM matches the entry as a pattern, so what matters is the text before its first
 * wildcard: an entry is account-wide when that fixed prefix stops in the partition, service,
 * region or account (`*`, `arn:*`, `arn:aws:iam::*:role/*`) or names no entity before it
 * (`arn:aws:iam::<account>:role/*`, `…:role*`, `…:*`). A name prefix (`role/app-*`) or a path
 * (`role/service-role/*`) narrows it; another service's ARN names no IAM entity at all; IAM refuses
 * a non-ARN entry other than `*`-patterns. Pure.
 */
export function isAccountWideResource(resource: string): boolean {
    const r = resource.trim();
    if (!wild(r)) {
        return false;
    }
    const fixed = r.split(/[*?]/)[0];
    if (!fixed.startsWith("arn:")) {
        return fixed === "";
    }
    const parts = fixed.split(":");
    // parts[2] is the service once a colon closes it.
    if (parts.length > 3 && parts[2] !== "iam") {
        return false;
    }
    // A name starts after the resource type's slash: before one, the entry matches every entity.
    return !/\/./.test(fixed);
}

/**
 * True when a `Resource` entry is every resource of its service: `*` (or `arn:*`, `arn:aws:*`), or
 * an ARN whose partition or service is a wildcard or whose resource part is wildcards only
 * (`arn:aws:s3:::*`, `arn:aws:sqs:*:*:*`). Pure.
 */
export function isEveryResource(resource: string): boolean {
    const r = resource.trim();
    const arn = arnParts(r);
    if (arn === undefined) {
        // Fewer than six parts: wildcards from the partition on (`*`, `arn:*`, `arn:aws:*`) match every ARN.
        return /^(arn(:[a-z-]*)?)?[*?:]*\*[*?:]*$/.test(r);
    }
    return wild(arn.partition) || wild(arn.service) || /^[*?:/]*[*][*?:/]*$/.test(arn.name);
}

const POLICY_ARN = /^arn:aws(?:-[a-z]+)*:iam::(aws|\d{12}):policy\/((?:[\w+=,.@-]+\/)*)([\w+=,.@-]+)$/;

/** True for a managed policy ARN, AWS's (`iam::aws:`) or an account's, with or without a path. */
export function isPolicyArn(arn: string): boolean {
    return POLICY_ARN.test(arn);
}

/**
 * A stable key for a managed policy ARN, from its account, path and name (never its position in
 * a list): `arn:aws:iam::aws:policy/service-role/AmazonEBSCSIDriverPolicy` →
 * `aws-service-role-AmazonEBSCSIDriverPolicy`. Pure.
 */
export function policyArnKey(arn: string): string {
    const match = POLICY_ARN.exec(arn);
    if (!match) {
        throw new Error(`${arn} is not a managed policy ARN`);
    }
    const [, account, path, name] = match;
    return [account, ...path.split("/").filter(Boolean), name].join("-");
}

const asList = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/**
 * True for an `Allow` statement on every action of every resource (`Action: "*"` or `"*:*"` with
 * `Resource: "*"`): administrator access in all but name. Pure.
 */
export function allowsEverything(statement: { Effect: string; Action?: string | string[]; Resource?: string | string[] }): boolean {
    const actions = asList(statement.Action);
    const resources = asList(statement.Resource);
    return statement.Effect === "Allow" && actions.some((a) => a === "*" || a === "*:*") && resources.includes("*");
}
