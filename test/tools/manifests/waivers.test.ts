/**
 * Waivers (tools/manifests/waivers.ts) on objects read from YAML text, each rule on its own: how
 * far a waiver reaches (its object and its policy, nothing more), what it needs (a policy of the
 * pack and a reason), what is never waivable (the API server's validation: the cluster refuses the
 * object whatever a waiver says) and what an environment forbids (`<pack>/waivers.json`). The
 * command end to end, text, JSON and SARIF: policyCheck.test.ts.
 */
import { expect } from "chai";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { FileError, InputError } from "../../../tools/cli/errors";
import type { GateDiagnostic } from "../../../tools/gate/gate";
import { API_SERVER_VALIDATION } from "../../../tools/gate/schema";
import { type ManifestResource, parseManifests, toResources } from "../../../tools/manifests/manifests";
import { applyWaivers, readWaivers, unwaivable, type Waiver, WAIVER_PREFIX } from "../../../tools/manifests/waivers";

const REPLICAS = "workload-service-replicas";
const PSS = "pod-security-standard";
const POLICIES = [API_SERVER_VALIDATION, REPLICAS, PSS];

/** A Deployment `shop/<name>` with `annotations` written as YAML lines under `metadata.annotations` (none: no annotations). */
function deployment(name: string, annotations: readonly string[] = []): string {
    return [
        "apiVersion: apps/v1",
        "kind: Deployment",
        "metadata:",
        `  name: ${name}`,
        "  namespace: shop",
        ...(annotations.length > 0 ? ["  annotations:", ...annotations.map((a) => `    ${a}`)] : []),
        "spec:",
        "  replicas: 1",
    ].join("\n");
}

/** The objects of one file `app.yaml` holding `documents`, as the manifest gate maps them. */
function objects(...documents: string[]): ManifestResource[] {
    return toResources(parseManifests(`${documents.join("\n---\n")}\n`, "app.yaml"), "prod");
}

/** A mandatory finding of `policy` on `r`, as the gate reports it. */
function finding(r: ManifestResource, policy: string): GateDiagnostic {
    return { policy, level: "mandatory", urn: r.resource.urn, message: `${r.kind} ${r.name} breaks ${policy}`, undeterminable: false };
}

/** What readWaivers throws for `documents`, or "" when it accepts them. */
function refusal(...documents: string[]): string {
    try {
        readWaivers(objects(...documents), POLICIES);
        return "";
    } catch (err) {
        expect(err, "a bad waiver is bad input (exit 2)").to.be.instanceOf(InputError);
        return (err as Error).message;
    }
}

/** A pack directory whose waivers.json holds `content` (undefined: no waivers.json). */
function packDir(content?: string): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "waivers-"));
    if (content !== undefined) {
        fs.writeFileSync(path.join(dir, "waivers.json"), content);
    }
    return dir;
}

describe("waivers: platform/waive-<policy>: <reason> on the object it excuses", () => {
    describe("how far a waiver reaches", () => {
        const [web, api] = objects(
            deployment("web", [`${WAIVER_PREFIX}${REPLICAS}: "leader-elected; clients retry for 60 s"`]),
            deployment("api"),
        );
        const waivers = readWaivers([web, api], POLICIES);

        it("waives its own object only: the same policy's finding on another object stands (a waiver never reaches every object of the policy)", () => {
            const out = applyWaivers([finding(web, REPLICAS), finding(api, REPLICAS)], waivers, new Set(), "prod");
            expect(
                out.diagnostics.map((d) => [d.urn, d.waived]),
                "rule: a waiver reaches the one object it is written on",
            ).to.deep.equal([
                [web.resource.urn, "leader-elected; clients retry for 60 s"],
                [api.resource.urn, undefined],
            ]);
            expect(out.warnings, "an allowed waiver raises no warning").to.deep.equal([]);
        });

        it("waives the policy it names only: another policy's finding on the same object stands", () => {
            const out = applyWaivers([finding(web, PSS), finding(web, REPLICAS)], waivers, new Set(), "prod");
            expect(
                out.diagnostics.map((d) => [d.policy, d.waived]),
                "rule: a waiver reaches the one policy it names",
            ).to.deep.equal([
                [PSS, undefined],
                [REPLICAS, "leader-elected; clients retry for 60 s"],
            ]);
        });

        it("changes nothing else of a finding it waives: it is still reported, at its level, with its message", () => {
            const before = finding(web, REPLICAS);
            const [after] = applyWaivers([before], waivers, new Set(), "prod").diagnostics;
            expect(after, "rule: a waived finding is still reported, marked waived").to.deep.equal({
                ...before,
                waived: waivers[0].reason,
            });
        });
    });

    describe("what a waiver needs", () => {
        it("reads a waiver as its object's URN, the policy after the prefix, the reason trimmed, and the annotation's line", () => {
            const [web] = objects(deployment("web", ["platform/owner: shop-team", `${WAIVER_PREFIX}${REPLICAS}: "  leader-elected  "`]));
            expect(readWaivers([web], POLICIES), "rule: a waiver names its object, policy, reason and line").to.deep.equal([
                { urn: web.resource.urn, policy: REPLICAS, reason: "leader-elected", file: "app.yaml", line: 8 } satisfies Waiver,
            ]);
        });

        it("reads only platform/waive-<policy> annotations: another prefix, or the prefix elsewhere in the key, waives nothing", () => {
            const [web] = objects(
                deployment("web", [
                    `example.com/waive-${REPLICAS}: "not ours"`,
                    `platform/owner-waive-${REPLICAS}: "not a waiver"`,
                    `x${WAIVER_PREFIX}${REPLICAS}: "not a waiver"`,
                ]),
            );
            expect(readWaivers([web], POLICIES), "rule: a waiver's key starts with platform/waive-").to.deep.equal([]);
        });

        it("points at the object's first line when the reader cannot place the annotation", () => {
            const [web] = objects(deployment("web", [`${WAIVER_PREFIX}${REPLICAS}: "leader-elected"`]));
            const placeless: ManifestResource = { ...web, manifest: { ...web.manifest, line: 3, lineOf: undefined } };
            expect(readWaivers([placeless], POLICIES)[0].line, "rule: a waiver without a line of its own is placed at its object").to.equal(
                3,
            );
        });

        it("refuses a blank reason (empty, spaces only) and one that is no text, naming file, line, object and the policy it would break", () => {
            for (const value of ['""', '"   "', "7", "true", "null"]) {
                expect(
                    refusal(deployment("web", [`${WAIVER_PREFIX}${REPLICAS}: ${value}`])),
                    `rule: a waiver needs a reason (${value})`,
                ).to.equal(
                    `1 waiver is not valid:\n  - app.yaml:7: Deployment shop/web: ${WAIVER_PREFIX}${REPLICAS} needs a reason as its value (why this object may break ${REPLICAS})`,
                );
            }
        });

        it("refuses a waiver of no policy of the pack, listing the pack's policies sorted", () => {
            expect(
                refusal(deployment("web", [`${WAIVER_PREFIX}workload-service-replica: "typo"`])),
                "rule: a waiver names a policy of the pack",
            ).to.equal(
                `1 waiver is not valid:\n  - app.yaml:7: Deployment shop/web: ${WAIVER_PREFIX}workload-service-replica waives "workload-service-replica", which is no policy of this pack (policies: ${API_SERVER_VALIDATION}, ${PSS}, ${REPLICAS})`,
            );
            expect(refusal(deployment("web", [`${WAIVER_PREFIX}: "no policy at all"`])), "rule: the prefix alone names no policy").to.match(
                /waives "", which is no policy of this pack/,
            );
        });

        it("lists every bad waiver of every object at once, counted, and keeps none of the good ones", () => {
            const message = refusal(
                deployment("web", [`${WAIVER_PREFIX}${REPLICAS}: ""`, `${WAIVER_PREFIX}${PSS}: "runs as root for now"`]),
                deployment("api", [`${WAIVER_PREFIX}nope: "typo"`]),
            );
            expect(message.split("\n"), "rule: every bad waiver is named in one error").to.deep.equal([
                "2 waivers are not valid:",
                `  - app.yaml:7: Deployment shop/web: ${WAIVER_PREFIX}${REPLICAS} needs a reason as its value (why this object may break ${REPLICAS})`,
                `  - app.yaml:18: Deployment shop/api: ${WAIVER_PREFIX}nope waives "nope", which is no policy of this pack (policies: ${API_SERVER_VALIDATION}, ${PSS}, ${REPLICAS})`,
            ]);
        });
    });

    describe("what can never be waived, and what an environment forbids", () => {
        const [bad] = objects(deployment("web", [`${WAIVER_PREFIX}${API_SERVER_VALIDATION}: "the API server is wrong"`]));

        it("never waives the API server's validation: in an environment whose waivers.json forbids nothing, and without waivers.json, the finding stands", () => {
            for (const [dir, env] of [
                [packDir(), "prod"],
                [packDir('{"dev": {"unwaivable": []}}'), "dev"],
                [packDir('{"prod": {"unwaivable": ["pod-security-standard"]}}'), "dev"],
            ]) {
                const forbidden = unwaivable(dir, env);
                expect([...forbidden], `rule: the API server's validation is never waivable (${env})`).to.include(API_SERVER_VALIDATION);
                const out = applyWaivers([finding(bad, API_SERVER_VALIDATION)], readWaivers([bad], POLICIES), forbidden, env);
                expect(out.diagnostics[0].waived, "rule: the cluster refuses the object whatever a waiver says").to.equal(undefined);
                expect(out.warnings).to.deep.equal([
                    `app.yaml:7: the waiver of ${API_SERVER_VALIDATION} is refused: environment ${env} does not allow waiving it (the API server refuses the object whatever a waiver says)`,
                ]);
            }
        });

        it("forbids the policies of the environment's own list only: prod's unwaivable policy is waivable in dev, and an environment waivers.json omits forbids only the API server's validation", () => {
            const dir = packDir('{"prod": {"unwaivable": ["pod-security-standard", "api-versions-served"]}, "dev": {"unwaivable": []}}');
            expect([...unwaivable(dir, "prod")].sort(), "rule: prod forbids its list").to.deep.equal(
                [API_SERVER_VALIDATION, "api-versions-served", PSS].sort(),
            );
            expect([...unwaivable(dir, "dev")], "rule: dev's empty list forbids nothing more").to.deep.equal([API_SERVER_VALIDATION]);
            expect([...unwaivable(dir, "staging")], "rule: an environment the file omits forbids nothing more").to.deep.equal([
                API_SERVER_VALIDATION,
            ]);
        });

        it("keeps a finding whose waiver the environment forbids, with one warning per such waiver naming its line and waivers.json; the allowed waiver still applies", () => {
            const [web] = objects(
                deployment("web", [`${WAIVER_PREFIX}${PSS}: "runs as root for now"`, `${WAIVER_PREFIX}${REPLICAS}: "leader-elected"`]),
            );
            const forbidden = unwaivable(packDir('{"prod": {"unwaivable": ["pod-security-standard"]}}'), "prod");
            const out = applyWaivers([finding(web, PSS), finding(web, REPLICAS)], readWaivers([web], POLICIES), forbidden, "prod");
            expect(
                out.diagnostics.map((d) => [d.policy, d.waived]),
                "rule: a waiver the environment forbids is refused; the finding stands",
            ).to.deep.equal([
                [PSS, undefined],
                [REPLICAS, "leader-elected"],
            ]);
            expect(out.warnings, "rule: a refused waiver is said so").to.deep.equal([
                `app.yaml:7: the waiver of ${PSS} is refused: environment prod does not allow waiving it (waivers.json)`,
            ]);
            // The same waiver where the environment allows it.
            const dev = applyWaivers([finding(web, PSS)], readWaivers([web], POLICIES), unwaivable(packDir(), "dev"), "dev");
            expect(dev.diagnostics[0].waived, "rule: what prod forbids is waivable where allowed").to.equal("runs as root for now");
            expect(dev.warnings).to.deep.equal([]);
        });

        it("refuses a waivers.json that is not JSON, or whose list is no list of policy names, naming the file", () => {
            const cases: [string, RegExp][] = [
                ["{not json", /waivers\.json: not JSON: /],
                ['{"prod": {"unwaivable": "pod-security-standard"}}', /waivers\.json: prod\.unwaivable must be a list of policy names/],
                [
                    '{"prod": {"unwaivable": ["pod-security-standard", 3]}}',
                    /waivers\.json: prod\.unwaivable must be a list of policy names/,
                ],
            ];
            for (const [content, message] of cases) {
                expect(() => unwaivable(packDir(content), "prod"), `rule: a bad waivers.json is bad input (${content})`)
                    .to.throw(FileError)
                    .with.property("message")
                    .that.matches(message);
            }
            // Another environment's bad list is that environment's problem.
            expect([...unwaivable(packDir('{"prod": {"unwaivable": "x"}}'), "dev")]).to.deep.equal([API_SERVER_VALIDATION]);
        });
    });
});
