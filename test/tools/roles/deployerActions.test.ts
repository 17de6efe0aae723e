/**
 * tools/roles/deployerActions.ts against its sources: the actions of every type the program can register
 * compared with the provider calls read upstream (test/fixtures/deployer/upstream.yaml), each
 * difference with its reason there.
 */
import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";
import { KEY_ADMINISTRATION_ACTIONS } from "../../../components/iam";
import { DEPLOYER_ACTIONS, DEPLOYER_INVOKES, makesNoAwsCall } from "../../../tools/roles/deployerActions";
import { ROOT } from "../../mocks";
import { programTypes } from "../../programTypes";

const UPSTREAM = YAML.parse(fs.readFileSync(path.join(ROOT, "test", "fixtures", "deployer", "upstream.yaml"), "utf8")) as {
    provider: string;
    components: Record<string, string[]>;
    notGranted: Record<string, Record<string, string>>;
    byKeyPolicy: string[];
    extra: Record<string, Record<string, string>>;
    notYetChecked: { type: string; reason: string }[];
    types: Record<string, { read: string; actions: string[] }>;
};

/** Every action an entry grants, on any scope. */
function granted(type: string): string[] {
    const entry = DEPLOYER_ACTIONS[type];
    return [...entry.actions, ...Object.values(entry.also ?? {}).flat()];
}

/** The upstream types a table entry stands for (a component: its children). */
const upstreamOf = (type: string) => UPSTREAM.components[type] ?? [type];

describe("tools/roles/deployerActions.ts against upstream (test/fixtures/deployer/upstream.yaml)", () => {
    const checked = Object.keys(DEPLOYER_ACTIONS).filter((t) => DEPLOYER_ACTIONS[t].scope !== "none");

    it("names the provider version the calls were read for, and the one package.json pins", () => {
        const pinned = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> })
            .dependencies;
        expect(UPSTREAM.provider).to.include(`@pulumi/aws ${pinned["@pulumi/aws"]}`).and.include(`@pulumi/eks ${pinned["@pulumi/eks"]}`);
    });

    it("has an entry, or makes no AWS call, for every type the program's source can register (a missing action fails an `up` half-way)", () => {
        const types = programTypes();
        expect(types, "the scan sees the types no sample stack renders").to.include.members([
            "aws:iam/serviceLinkedRole:ServiceLinkedRole",
            "aws:kms/grant:Grant",
            "eks:index:Cluster",
        ]);
        const missing = types.filter((t) => DEPLOYER_ACTIONS[t] === undefined && !makesNoAwsCall(t));
        expect(missing).to.deep.equal([]);
    });

    it("holds upstream calls, or a note that they are still unread, for every entry that makes AWS calls", () => {
        const covered = new Set([...Object.keys(UPSTREAM.types), ...UPSTREAM.notYetChecked.map((n) => n.type)]);
        for (const type of checked) {
            for (const u of upstreamOf(type)) {
                expect(covered.has(u) || UPSTREAM.notYetChecked.some((n) => n.type === type), `${type}: ${u}`).to.equal(true);
            }
        }
    });

    for (const type of Object.keys(DEPLOYER_ACTIONS).filter((t) => DEPLOYER_ACTIONS[t].scope !== "none")) {
        const read = upstreamOf(type).filter((u) => UPSTREAM.types[u] !== undefined);
        if (read.length === 0) {
            continue;
        }
        it(`${type}: grants every call upstream makes (${read.map((u) => UPSTREAM.types[u].read.split(" @")[0].split(" (")[0]).join("; ")}), and nothing else without a reason`, () => {
            const mine = new Set(granted(type));
            const keyPolicy = UPSTREAM.byKeyPolicy.includes(type) ? KEY_ADMINISTRATION_ACTIONS : [];
            const skipped = UPSTREAM.notGranted[type] ?? {};
            const upstream = read.flatMap((u) => UPSTREAM.types[u].actions);
            const missing = upstream.filter((a) => !mine.has(a) && !keyPolicy.includes(a) && skipped[a] === undefined);
            expect(missing, "upstream calls neither granted, nor granted by the key's policy, nor left out with a reason").to.deep.equal(
                [],
            );
            const extra = [...mine].filter((a) => !upstream.includes(a) && (UPSTREAM.extra[type] ?? {})[a] === undefined);
            expect(extra, "granted without an upstream call or a reason in `extra`").to.deep.equal([]);
        });
    }

    it("leaves out only calls upstream makes, and grants extras only beyond them (no stale reason)", () => {
        for (const [type, actions] of Object.entries(UPSTREAM.notGranted)) {
            for (const a of Object.keys(actions)) {
                expect(UPSTREAM.types[type].actions, `${type} ${a}`).to.include(a);
                expect(granted(type), `${type} ${a}`).to.not.include(a);
            }
        }
        for (const [type, actions] of Object.entries(UPSTREAM.extra)) {
            for (const a of Object.keys(actions)) {
                expect(granted(type), `${type} ${a}`).to.include(a);
                expect(UPSTREAM.types[type].actions, `${type} ${a}`).to.not.include(a);
            }
        }
    });

    it("never grants iam:DeleteRolePermissionsBoundary: a role of the stack keeps its boundary", () => {
        for (const type of Object.keys(DEPLOYER_ACTIONS)) {
            expect(granted(type), type).to.not.include("iam:DeleteRolePermissionsBoundary");
        }
    });

    it("grants KMS key administration in no entry: each key's own policy does (KEY_ADMINISTRATION_ACTIONS)", () => {
        const administration = KEY_ADMINISTRATION_ACTIONS.filter((a) => a !== "kms:TagResource");
        for (const type of Object.keys(DEPLOYER_ACTIONS)) {
            expect(
                granted(type).filter(
                    (a) =>
                        administration.includes(a) &&
                        !(type === "aws:kms/alias:Alias" && /Alias$/.test(a)) &&
                        !(type === "aws:kms/grant:Grant" && a === "kms:CreateGrant"),
                ),
                type,
            ).to.deep.equal([]);
        }
    });

    it("names a source for each entry and invoke, and writes each action as service:Action", () => {
        for (const [type, entry] of Object.entries(DEPLOYER_ACTIONS)) {
            expect(entry.source, type).to.match(/\S{8,}/);
            if (entry.scope !== "none") {
                expect(entry.source, type).to.match(/internal\/service\/[a-z0-9]+\/[a-z0-9_]+\.go/);
            }
            for (const a of granted(type)) {
                expect(a, type).to.match(/^[a-z0-9-]+:[A-Z][A-Za-z0-9]+$/);
            }
        }
        for (const invoke of DEPLOYER_INVOKES) {
            expect(invoke.source).to.match(/\S{8,}/);
        }
    });

    it("has a scope by name, with the input that holds it, for each type that owns a name or attaches to one", () => {
        const byName = ["roles", "instanceProfiles", "aliases", "logGroups", "queues", "eventRules", "autoScalingGroups"];
        for (const [type, entry] of Object.entries(DEPLOYER_ACTIONS)) {
            if (byName.includes(entry.scope) && type !== "aws:sqs/queuePolicy:QueuePolicy") {
                expect(entry.namedBy, type).to.be.a("string");
            }
        }
        expect(DEPLOYER_ACTIONS["aws:iam/rolePolicy:RolePolicy"].namedBy).to.equal("role");
        expect(DEPLOYER_ACTIONS["aws:cloudwatch/eventTarget:EventTarget"].namedBy).to.equal("rule");
    });
});
