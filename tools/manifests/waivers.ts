/**
 * Waivers: an application team waives one policy on one object, with a reason, where the object
 * is written:
 *
 *   metadata:
 *     annotations:
 *       platform/waive-workload-service-replicas: "leader-elected; clients retry for 60 s"
 *
 * The key is `platform/waive-<policy>` (the repository's `platform/` prefix); the value, the
 * reason, is required. A waived finding is still reported — marked waived, with its reason, in
 * text, JSON and SARIF (a SARIF suppression) — and no longer counts towards the exit code. A
 * waiver naming no policy of the pack is bad input. `<pack>/waivers.json` lists, per environment,
 * the policies that cannot be waived there (`{"prod": {"unwaivable": ["pod-security-standard"]}}`):
 * a waiver of one of those is refused, said so, and the finding stands. The API server's
 * validation is never waivable: the cluster refuses the object whatever a waiver says.
 */
import * as fs from "fs";
import * as path from "path";
import { asRecord, field } from "eks-platform-kernel";
import { FileError, InputError } from "../cli/errors";
import type { GateDiagnostic } from "../gate/gate";
import { ManifestResource, subjectOf } from "./manifests";
import { API_SERVER_VALIDATION } from "../gate/schema";

/** The annotation prefix of a waiver; the rest of the key is the policy's name. */
export const WAIVER_PREFIX = "platform/waive-";

/** One waiver as written on an object. */
export interface Waiver {
    urn: string;
    policy: string;
    reason: string;
    file: string;
    line: number;
}

/** The waivers written on the objects, each checked: a known policy, a reason. Throws naming every bad one. */
export function readWaivers(resources: readonly ManifestResource[], policies: readonly string[]): Waiver[] {
    const known = new Set(policies);
    const out: Waiver[] = [];
    const bad: string[] = [];
    for (const r of resources) {
        const annotations = asRecord(field(r.manifest.object.metadata, "annotations")) ?? {};
        for (const [key, value] of Object.entries(annotations)) {
            if (!key.startsWith(WAIVER_PREFIX)) {
                continue;
            }
            const policy = key.slice(WAIVER_PREFIX.length);
            const line = r.manifest.lineOf?.(["metadata", "annotations", key]) ?? r.manifest.line;
            const at = `${r.manifest.file}:${line}: ${subjectOf(r)}`;
            if (!known.has(policy)) {
                bad.push(`${at}: ${key} waives "${policy}", which is no policy of this pack (policies: ${[...known].sort().join(", ")})`);
            } else if (typeof value !== "string" || value.trim() === "") {
                bad.push(`${at}: ${key} needs a reason as its value (why this object may break ${policy})`);
            } else {
                out.push({ urn: r.resource.urn, policy, reason: value.trim(), file: r.manifest.file, line });
            }
        }
    }
    if (bad.length > 0) {
        throw new InputError(
            `${bad.length} waiver${bad.length > 1 ? "s are" : " is"} not valid:\n${bad.map((b) => `  - ${b}`).join("\n")}`,
        );
    }
    return out;
}

/** The policies `env` forbids waiving (`<packDir>/waivers.json`), the API server's validation always among them. */
export function unwaivable(packDir: string, env: string): Set<string> {
    const file = path.join(packDir, "waivers.json");
    const out = new Set([API_SERVER_VALIDATION]);
    if (!fs.existsSync(file)) {
        return out;
    }
    let raw: unknown;
    try {
        raw = JSON.parse(fs.readFileSync(file, "utf8"));
    } catch (err) {
        throw new FileError(file, undefined, `not JSON: ${(err as Error).message}`);
    }
    const list = field(field(raw, env), "unwaivable");
    if (list !== undefined && (!Array.isArray(list) || list.some((p) => typeof p !== "string"))) {
        throw new FileError(file, undefined, `${env}.unwaivable must be a list of policy names`);
    }
    for (const p of (list as string[] | undefined) ?? []) {
        out.add(p);
    }
    return out;
}

/**
 * Applies the waivers to the gate's findings: a finding on a waived object for the waived policy
 * gets `waived` (its reason); one the environment forbids waiving stands, with a warning.
 */
export function applyWaivers(
    diagnostics: readonly GateDiagnostic[],
    waivers: readonly Waiver[],
    forbidden: ReadonlySet<string>,
    env: string,
): { diagnostics: GateDiagnostic[]; warnings: string[] } {
    const byKey = new Map(waivers.map((w) => [`${w.urn}\u0000${w.policy}`, w]));
    const warnings = waivers
        .filter((w) => forbidden.has(w.policy))
        .map(
            (w) =>
                `${w.file}:${w.line}: the waiver of ${w.policy} is refused: environment ${env} does not allow waiving it${w.policy === API_SERVER_VALIDATION ? " (the API server refuses the object whatever a waiver says)" : " (waivers.json)"}`,
        );
    return {
        diagnostics: diagnostics.map((d) => {
            const w = d.urn === undefined ? undefined : byKey.get(`${d.urn}\u0000${d.policy}`);
            return w && !forbidden.has(w.policy) ? { ...d, waived: w.reason } : d;
        }),
        warnings,
    };
}
