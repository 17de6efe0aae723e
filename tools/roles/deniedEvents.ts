/**
 * `npm run deployer-policy -- <stack> --denied <cloudtrail.json>`: what in the generated policies
 * refused each call CloudTrail recorded as denied, read offline from the events a fork's first
 * `pulumi up` left (`aws cloudtrail lookup-events --lookup-attributes
 * AttributeKey=Username,AttributeValue=<session>`, or a log file of the trail, gzipped or not).
 * The deploy role's calls are judged against the deploy policy; the stack's own roles' (named
 * under its prefix) against the permissions boundary they carry. The deploy role carries no
 * boundary (docs/roles.md creates it without one; the boundary denies the `iam:CreateRole` it must
 * make), so its calls never are. Other principals' records are counted and skipped.
 *
 * Sources: CloudTrail User Guide, "CloudTrail record contents for management, data, and network
 * activity events" (eventSource, eventName, errorCode, errorMessage, eventTime) and "CloudTrail
 * userIdentity element" (sessionContext.sessionIssuer.arn); CloudTrail API Reference, LookupEvents
 * (`Events[].CloudTrailEvent`, the record as a JSON string); IAM User Guide, "Troubleshoot access
 * denied error messages" (`User: … is not authorized to perform: <action> on resource: <arn>
 * because no <type> policy allows …` or `… with an explicit deny in a <type> policy`).
 */
import * as fs from "fs";
import { gunzipSync } from "zlib";
import { actionCovers, stackNamePrefix } from "eks-platform-kernel";
import type { PolicyDocument, PolicyStatement } from "../../components/iam";
import { DEPLOYER_ACTIONS } from "./deployerActions";
import { type DeployerContext, deployerPolicy, permissionsBoundary, type PlannedResource } from "./deployRole";
import { InputError } from "../cli/errors";

/** A CloudTrail record, the fields this reads (CloudTrail record contents; `userIdentity`: CloudTrail userIdentity element). */
export interface TrailRecord {
    eventSource: string;
    eventName: string;
    eventTime?: string;
    errorCode?: string;
    errorMessage?: string;
    /** `sessionContext.sessionIssuer.arn`: the role an assumed-role session was assumed from. */
    userIdentity?: { arn?: string; sessionContext?: { sessionIssuer?: { arn?: string } } };
    /** `null` for a call without parameters (CloudTrail record contents). */
    requestParameters?: Record<string, unknown> | null;
}

/** A distinct denied call: whose (`deploy`, or the ARN of a role of the stack), what, on what, how often. */
export interface DeniedCall {
    whose: string;
    action: string;
    /** The ARN the error message names; absent when it names none (EC2's encoded messages). */
    resource?: string;
    /** The message's reason: `no identity-based policy allows it`, `explicit deny in a service control policy`. */
    reason?: string;
    encoded: boolean;
    count: number;
    firstTime: string;
    requestParameters?: Record<string, unknown> | null;
}

const obj = (v: unknown): Record<string, unknown> | undefined =>
    typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
const list = (v: string | string[] | undefined): string[] => [v ?? []].flat();

/** The records of a lookup-events output (`Events`) or a log file (`Records`). Throws `InputError` naming the file and the record. Pure. */
export function parseTrail(file: string, text: string): TrailRecord[] {
    const fail = (what: string) => new InputError(`${file}: ${what}`);
    let doc: Record<string, unknown> | undefined;
    try {
        doc = obj(JSON.parse(text));
    } catch (err) {
        throw fail(`not JSON (${(err as Error).message}): give the output of \`aws cloudtrail lookup-events\` or a CloudTrail log file`);
    }
    const wrapper = Array.isArray(doc?.Events) ? "Events" : Array.isArray(doc?.Records) ? "Records" : undefined;
    if (wrapper === undefined) {
        throw fail(
            `neither "Events" (the output of \`aws cloudtrail lookup-events\`) nor "Records" (a CloudTrail log file): give one of them`,
        );
    }
    return (doc as Record<string, unknown[]>)[wrapper].map((entry, i) => {
        const where = `${wrapper}[${i}]`;
        let parsed = entry;
        if (wrapper === "Events") {
            try {
                // An entry that is no object throws here too.
                parsed = JSON.parse(String((entry as { CloudTrailEvent?: unknown }).CloudTrailEvent));
            } catch {
                throw fail(`${where}: its CloudTrailEvent is not a record in JSON, as lookup-events prints it`);
            }
        }
        const r = obj(parsed);
        const absent = r === undefined ? "record" : ["eventSource", "eventName"].find((f) => typeof r[f] !== "string");
        if (absent !== undefined) {
            throw fail(`${where}: no ${absent}: every CloudTrail record has one (CloudTrail record contents); is this a CloudTrail file?`);
        }
        return r as unknown as TrailRecord;
    });
}

/** The error codes of a refused authorization: IAM's, S3's and STS's `AccessDenied`, the JSON services' `AccessDeniedException`, EC2's `(Client.)UnauthorizedOperation`. */
const DENIED = /^(Client\.)?(AccessDenied(Exception)?|Unauthorized(Operation|Access)|AuthorizationError(Exception)?)$/;

/** Endpoints whose first label is not the service's IAM prefix (Service Authorization Reference: CloudWatch's prefix is `cloudwatch`, its endpoint `monitoring`). */
const PREFIX_OF_HOST: Readonly<Record<string, string>> = { monitoring: "cloudwatch" };

/** The IAM action of a record: `<prefix>:<eventName>`, the prefix the endpoint's first label (`eks.amazonaws.com` → `eks`). Pure. */
export function actionOf(eventSource: string, eventName: string): string {
    const host = eventSource.split(".")[0];
    return `${PREFIX_OF_HOST[host] ?? host}:${eventName}`;
}

/** What an access-denied message names: the action, the resource, the reason; EC2's encoded message names none. Pure. */
export function readMessage(message = ""): { action?: string; resource?: string; reason?: string; encoded: boolean } {
    const named = /is not authorized to perform: ([\w-]+:[\w*]+)(?: on resource: (arn:\S+?))?(?=\.?(?:\s|$))/.exec(message);
    const reason =
        /because (no [\w -]+?) allows/i.exec(message)?.[1].concat(" allows it") ??
        /(explicit deny in an? [\w -]+?(?:policy|boundary))/i.exec(message)?.[1];
    return { action: named?.[1], resource: named?.[2], reason, encoded: /Encoded authorization failure message/i.test(message) };
}

/** Which of the stack's principals a record is of: the deploy role (`deploy`), a role of the stack (its ARN), or none. */
function whoseRecord(r: TrailRecord, ctx: DeployerContext): string | undefined {
    const issuer = r.userIdentity?.sessionContext?.sessionIssuer?.arn ?? r.userIdentity?.arn ?? "";
    const name = issuer.split("/").pop() as string;
    const stackRole =
        issuer.startsWith(`arn:${ctx.partition}:iam::${ctx.account}:role/`) && name.startsWith(stackNamePrefix(ctx.clusterName));
    return issuer === ctx.principals[0] ? "deploy" : stackRole ? issuer : undefined;
}

/** The denied records of the stack's principals, one per distinct call, in order of first time; the counts. Pure. */
export function deniedCalls(records: readonly TrailRecord[], ctx: DeployerContext) {
    const refused = records.filter((x) => DENIED.test(x.errorCode ?? ""));
    const calls = new Map<string, DeniedCall>();
    let skipped = 0;
    // Oldest first: a call's first record gives its first time and the request shown.
    for (const r of [...refused].sort((a, b) => (a.eventTime ?? "").localeCompare(b.eventTime ?? ""))) {
        const whose = whoseRecord(r, ctx);
        if (whose === undefined) {
            skipped += 1;
            continue;
        }
        const m = readMessage(r.errorMessage);
        const action = m.action ?? actionOf(r.eventSource, r.eventName);
        const key = JSON.stringify([whose, action, m.resource]);
        const call = calls.get(key) ?? {
            ...m,
            whose,
            action,
            count: 0,
            firstTime: r.eventTime ?? "(no time)",
            requestParameters: r.requestParameters,
        };
        call.count += 1;
        calls.set(key, call);
    }
    return { denied: refused.length, skipped, calls: [...calls.values()] };
}

/**
 * Whether a `Resource` pattern covers an ARN: `*` any run, `?` one character, case-sensitive (IAM
 * User Guide, "IAM JSON policy elements: Resource": wildcards within ARN segments, a trailing `*`
 * reaching past the colons; names compare case-sensitively). The kernel's `actionCovers` matches
 * case-insensitively, as IAM matches actions, so it cannot serve here.
 */
function resourceCovers(pattern: string, arn: string): boolean {
    const body = pattern.replace(/[.+^${}()|[\]\\*?]/g, (c) => (c === "*" ? ".*" : c === "?" ? "." : `\\${c}`));
    return new RegExp(`^${body}$`).test(arn);
}

const coversAction = (s: PolicyStatement, action: string) =>
    s.Action !== undefined ? list(s.Action).some((p) => actionCovers(p, action)) : !list(s.NotAction).some((p) => actionCovers(p, action));
/** An unknown resource (a message that names none) is taken as covered: the verdict then rests on the action. */
const coversResource = (s: PolicyStatement, arn: string | undefined) =>
    arn === undefined ||
    (s.Resource !== undefined
        ? list(s.Resource).some((p) => resourceCovers(p, arn))
        : !list(s.NotResource).some((p) => resourceCovers(p, arn)));

/** A statement's condition as it reads: `StringEquals iam:PermissionsBoundary = arn:…`. */
function conditionText(s: PolicyStatement): string {
    return Object.entries(s.Condition ?? {})
        .flatMap(([op, keys]) => Object.entries(keys).map(([k, v]) => `${op} ${k} = ${Array.isArray(v) ? v.join(", ") : String(v)}`))
        .join(" and ");
}

/** Request parameters CloudTrail records that carry a condition key's value (IAM's CreateRole, AttachRolePolicy). */
const KEY_PARAMETERS: Readonly<Record<string, string>> = { "iam:PermissionsBoundary": "permissionsBoundary", "iam:PolicyARN": "policyArn" };

/** What the request said of the statement's condition keys, where CloudTrail records it. */
function requestSaid(s: PolicyStatement, params: Record<string, unknown> | null = {}): string {
    const keys = Object.values(s.Condition ?? {}).flatMap((k) => Object.keys(k).map((key) => KEY_PARAMETERS[key]));
    const said = keys.filter((k) => k !== undefined).map((k) => `${k}: ${params?.[k] === undefined ? "none" : JSON.stringify(params[k])}`);
    return said.length > 0 ? ` (the request's ${said.join(", ")})` : "";
}

export interface Verdict {
    /** Whether the generated policy or boundary refused it (cases 1–4), not something outside them. */
    refused: boolean;
    text: string;
}

const refusal = (text: string): Verdict => ({ refused: true, text });

/** The plan's types whose entry in tools/roles/deployerActions.ts would take `action`: those calling its noun, else its service. */
function entriesFor(action: string, plan: readonly PlannedResource[]): string[] {
    const [service, name] = action.split(":");
    const noun = name.replace(/^[A-Z][a-z]+/, "");
    const calls = (t: string) => [...DEPLOYER_ACTIONS[t].actions, ...Object.values(DEPLOYER_ACTIONS[t].also ?? {}).flat()];
    const types = [...new Set(plan.map((r) => r.type))].filter(
        (t) => DEPLOYER_ACTIONS[t] !== undefined && calls(t).some((a) => a.startsWith(`${service}:`)),
    );
    // A name that is all verb (`kms:Decrypt`) leaves no noun: every type of the service ends with it.
    const byNoun = types.filter((t) => calls(t).some((a) => a.startsWith(`${service}:`) && a.endsWith(noun)));
    const found = (byNoun.length > 0 ? byNoun : types).sort();
    return found.length > 3 ? [...found.slice(0, 3), `${found.length - 3} more of the plan's ${service} types`] : found;
}

/** Where the refusal came from when the generated document allows the call: what the message says, and what to do (for the deploy role, for a role of the stack). */
const ELSEWHERE: readonly (readonly [RegExp, string, string])[] = [
    [
        /(service|resource) control policy/i,
        "a policy of the organization, not of this repository: ask its administrators to allow the call in this account",
        "",
    ],
    [/resource-based|vpc endpoint|session policy/i, "not a policy this repository generates: allow the call there", ""],
    [
        /permissions boundary/i,
        "the deploy role carries none in docs/roles.md: remove it",
        "the boundary in the account differs from the generated one: re-apply the one --boundary prints",
    ],
    [
        /identity-based/i,
        "the deploy role's policy in the account differs from the generated one: re-apply the one this command prints without --denied",
        "the role's own policy (components/) lacks it",
    ],
];

function elsewhere(call: DeniedCall): string {
    const rule = ELSEWHERE.find(([re]) => re.test(call.reason ?? ""));
    if (rule !== undefined) {
        return `${call.reason}: ${(call.whose !== "deploy" && rule[2]) || rule[1]}`;
    }
    return call.encoded
        ? "the message is encoded: `aws sts decode-authorization-message --encoded-message <message>` says which policy refused it"
        : "the message does not say which policy: compare the policy in the account with the generated one and re-apply it";
}

/** Case 1: no statement of the deploy policy allows the action; where in tools/roles/deployerActions.ts to add it. */
function missing(action: string, plan: readonly PlannedResource[]): Verdict {
    const types = entriesFor(action, plan);
    const where = types.length > 0 ? `the entry of ${types.join(" or ")}` : "the entry of the plan's type that makes this call";
    return refusal(`missing: no statement of the deploy policy allows ${action}; add it to ${where} in tools/roles/deployerActions.ts`);
}

/** Case 2: statements allow the action, but none on the resource (which the message names: an unnamed one is covered by every statement). */
function outside(call: DeniedCall, allows: readonly PolicyStatement[], ctx: DeployerContext): Verdict {
    const placeholder = ctx.stateBucket.startsWith("<") && call.action.startsWith("s3:");
    const hint = placeholder ? "; give --state-bucket: without it the policy names a placeholder bucket" : "";
    const on = (s: PolicyStatement) =>
        s.NotResource !== undefined ? `all but ${list(s.NotResource).join(", ")}` : list(s.Resource).join(", ");
    const sids = allows.map((s) => `${s.Sid} (on ${on(s)})`).join(", ");
    const [noun, verb] = allows.length > 1 ? ["statements", "allow"] : ["statement", "allows"];
    return refusal(
        `${noun} ${sids} ${verb} ${call.action} but not on ${call.resource}: it is outside the stack's names: name the resource within them, or scope the call in tools/roles/deployRole.ts${hint}`,
    );
}

/** Case 3: the statements that allow the action on the resource do so only under a condition. */
function conditioned(call: DeniedCall, onResource: readonly PolicyStatement[]): Verdict {
    const on = call.resource ?? "(the message names no resource)";
    const each = onResource.map(
        (s) =>
            `statement ${s.Sid} allows ${call.action} on ${on} only under its condition ${conditionText(s)}${requestSaid(s, call.requestParameters)}`,
    );
    return refusal(`${each.join("; ")}: the request did not meet it; give the resource what the condition requires`);
}

/** The verdict on one denied call against the generated document that governs its principal (cases 1–5 of the command). Pure. */
export function judge(call: DeniedCall, doc: PolicyDocument, plan: readonly PlannedResource[], ctx: DeployerContext): Verdict {
    const boundary = call.whose !== "deploy";
    const matching = doc.Statement.filter((s) => coversAction(s, call.action));
    // A Deny under a condition CloudTrail cannot show is blamed only when the message names no other policy type.
    const mayDeny = (s: PolicyStatement) =>
        s.Condition === undefined || call.reason === undefined || /permissions boundary/i.test(call.reason);
    const deny = matching.find((s) => s.Effect === "Deny" && coversResource(s, call.resource) && mayDeny(s));
    if (deny !== undefined) {
        const when = deny.Condition ? ` when ${conditionText(deny)}` : "";
        const why = boundary ? "the boundary refuses it" : "the deploy policy denies it";
        return refusal(
            `${why}: statement ${deny.Sid}${when} (tools/roles/deployRole.ts says why): have the role do it another way, or change it there`,
        );
    }
    const allows = matching.filter((s) => s.Effect === "Allow");
    if (allows.length === 0) {
        return boundary
            ? refusal(
                  `the boundary refuses it: none of its statements allows ${call.action} (tools/roles/deployRole.ts, permissionsBoundary)`,
              )
            : missing(call.action, plan);
    }
    const onResource = allows.filter((s) => coversResource(s, call.resource));
    if (onResource.length === 0) {
        return outside(call, allows, ctx);
    }
    const outright = onResource.find((s) => s.Condition === undefined);
    if (outright === undefined) {
        return conditioned(call, onResource);
    }
    const unnamed = call.resource === undefined ? ", on whatever resource it was" : "";
    const text = `allowed by the generated ${boundary ? "boundary" : "policy"} (statement ${outright.Sid}${unnamed}): the refusal came from elsewhere: ${elsewhere(call)}`;
    return { refused: false, text };
}

/** The report of a file's denied calls; exit 1 when the generated documents refused any. Pure. */
export function deniedReport(
    file: string,
    read: number,
    found: ReturnType<typeof deniedCalls>,
    docs: { deploy: PolicyDocument; plan: readonly PlannedResource[] },
    ctx: DeployerContext,
): { code: number; stdout: string } {
    if (found.denied === 0) {
        return { code: 0, stdout: `no AccessDenied events in ${file} (${read} records read)\n` };
    }
    const prefix = stackNamePrefix(ctx.clusterName);
    const lines = [
        `${file}: ${read} records read, ${found.denied} denied, ${found.skipped} of another principal skipped (judged: the deploy role ${ctx.principals[0]} against its policy, the stack's roles ${prefix}* against the boundary)`,
    ];
    let refused = 0;
    const boundary = permissionsBoundary(ctx);
    for (const call of found.calls) {
        const v = judge(call, call.whose === "deploy" ? docs.deploy : boundary, docs.plan, ctx);
        refused += v.refused ? 1 : 0;
        const role = call.whose === "deploy" ? "" : ` by ${call.whose.split("/").pop()}`;
        lines.push(
            `  ${call.count}× ${call.action} on ${call.resource ?? "(no resource named)"}${role}, first at ${call.firstTime}: ${v.text}`,
        );
    }
    lines.push(
        found.calls.length === 0
            ? "no denied call of the deploy role or of the stack's roles: the file holds other principals' refusals only"
            : refused > 0
              ? `${refused} of ${found.calls.length} calls refused by the generated policies: each line says what to change; then print and re-apply the policies (npm run deployer-policy -- ${ctx.stack}, and --boundary)`
              : `none of the ${found.calls.length} calls is refused by the generated policies: each refusal came from elsewhere (above)`,
    );
    return { code: refused > 0 ? 1 : 0, stdout: `${lines.join("\n")}\n` };
}

/** The command: read the file, judge its denied calls; the plan is rendered only when the deploy role has some. */
export async function deniedEventsCommand(file: string, ctx: DeployerContext, plan: () => Promise<PlannedResource[]>) {
    let text: string;
    try {
        const bytes = fs.readFileSync(file);
        // A trail's log files are stored gzipped (CloudTrail User Guide, "Finding your CloudTrail log files").
        text = (bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes).toString("utf8");
    } catch (err) {
        throw new InputError(
            `${file}: cannot read it (${(err as NodeJS.ErrnoException).code ?? String(err)}): give the path of the saved events`,
        );
    }
    const records = parseTrail(file, text);
    const found = deniedCalls(records, ctx);
    // Without a call of the deploy role its policy is never consulted: an empty plan stands in.
    const resources = found.calls.some((c) => c.whose === "deploy") ? await plan() : [];
    return deniedReport(file, records.length, found, { deploy: deployerPolicy(resources, ctx), plan: resources }, ctx);
}
