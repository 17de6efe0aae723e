/**
 * The registry of node-group kinds (components/nodegroups/kinds.ts): every registered kind has
 * every part the platform needs. A kind that forgets one (a replacement rule, the rehearsal's
 * capacity type, the plan's key fields, diff's drain text, its row in the docs) fails here, not
 * silently in `plan --diff` or the drain rehearsal.
 */
import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import { parseReleaseVersion } from "eks-platform-kernel";
import { CAPACITY_TYPES } from "eks-platform-rehearsal";
import { z } from "zod";
import { NodeGroups } from "../../../components/nodegroups";
import {
    commonClusterProblems,
    commonFields,
    commonGroupProblems,
    type CommonNodeGroupConfig,
} from "../../../components/nodegroups/common.schema";
import type { NodeGroupKind } from "../../../components/nodegroups/kind";
import { kindOf, kindResourceTypes, NODE_GROUP_KINDS, withKindFacts } from "../../../components/nodegroups/kinds";
import { kindSchemaOf, NODE_GROUP_KIND_SCHEMAS, nodeGroupsSchema } from "../../../components/nodegroups/schema";
import { managedKind } from "../../../components/nodegroups/managed";
import { selfManagedKind } from "../../../components/nodegroups/selfManaged";
import { nodeCapacity } from "../../../tools/changes/diff";
import { planKeyFields } from "../../../tools/render/planText";
import { replacementRule } from "../../../tools/render/replacements";
import { ROOT, settled, useMocks } from "../../mocks";
import { around, demoCluster } from "./demoCluster";

/** Where the checker looks a kind's parts up: the tools, the rehearsal and the docs. */
interface Lookups {
    replacementRule: typeof replacementRule;
    capacityTypes: readonly string[];
    planKeyFields: typeof planKeyFields;
    nodeCapacity: typeof nodeCapacity;
    /** A file of the repository, or undefined when there is none. */
    read: (file: string) => string | undefined;
}

const REAL: Lookups = {
    replacementRule,
    capacityTypes: CAPACITY_TYPES,
    planKeyFields,
    nodeCapacity,
    read: (file) => (fs.existsSync(path.join(ROOT, file)) ? fs.readFileSync(path.join(ROOT, file), "utf8") : undefined),
};

/** GitHub's anchor of a Markdown heading. */
function slug(heading: string): string {
    return heading
        .trim()
        .toLowerCase()
        .replace(/[^\w\- ]/g, "")
        .replace(/ /g, "-");
}

/**
 * The parts `kind` lacks, one message each (none when it is complete). `rendered` holds the
 * resource types a `NodeGroups` built from its example registered under mocks.
 */
function missingParts(kind: NodeGroupKind, rendered: ReadonlySet<string>, lookups: Lookups = REAL): string[] {
    const missing: string[] = [];
    const parsed = kind.schema.safeParse(kind.example);
    if (!parsed.success) {
        missing.push(`its schema refuses its example: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
    } else {
        const config = parsed.data as CommonNodeGroupConfig;
        if (config.kind !== kind.kind) {
            missing.push(`its schema's kind is ${String(config.kind)}, not ${kind.kind}`);
        }
        const ami = kind.ami(config);
        const problems = [
            ...commonGroupProblems(config, ami),
            ...kind.problems(config),
            ...commonClusterProblems("probe", config, ami, { name: "demo", version: "1.34" }),
        ];
        if (problems.length > 0) {
            missing.push(`its example fails the checks: ${problems.map(([p, m]) => `${p.join(".")}: ${m}`).join("; ")}`);
        }
        // Public parameters live under /aws/service/ (AWS Systems Manager User Guide, "Discovering public parameters").
        const release = config.releaseVersion === undefined ? undefined : parseReleaseVersion(config.releaseVersion);
        if (config.releaseVersion !== undefined && release) {
            const parameter = kind.releaseParameter({ ...config, releaseVersion: config.releaseVersion });
            if (!parameter?.startsWith("/aws/service/") || !parameter.includes(`/${release.minor}/`)) {
                missing.push(
                    `npm run preflight cannot name the public parameter of its example's release ${config.releaseVersion} (releaseParameter, common.schema.ts): ${String(parameter)}`,
                );
            }
        }
    }
    const unknownKey = kind.schema.safeParse({ ...kind.example, notAKey: true });
    if (unknownKey.success || !unknownKey.error.issues.some((i) => i.code === "unrecognized_keys")) {
        missing.push("its schema accepts an unknown key (use z.strictObject)");
    }

    const type = kind.nodes.type;
    if (!lookups.capacityTypes.includes(type)) {
        missing.push(`the drain rehearsal cannot read ${type} as node capacity (CAPACITY_TYPES, rehearsal/readGroups.ts)`);
    }
    if (kind.resourceTypes[type] === undefined) {
        missing.push(`it declares nothing of its node type ${type} in resourceTypes`);
    }
    const rule = lookups.replacementRule(type);
    if (!rule || rule.replaceOn.length === 0 || (rule.rollsNodesOn ?? []).length === 0) {
        missing.push(`${type} has no replacement rule with replaceOn and rollsNodesOn (tools/render/replacements.ts)`);
    }
    for (const [owned, facts] of Object.entries(kind.resourceTypes)) {
        if (JSON.stringify(lookups.replacementRule(owned)) !== JSON.stringify(facts.replacement)) {
            missing.push(`tools/render/replacements.ts does not answer its own rule for ${owned}`);
        }
    }
    if ((lookups.planKeyFields(type) ?? []).length === 0) {
        missing.push(`the plan text shows no key fields of ${type} (tools/render/planText.ts)`);
    }
    const capacity = lookups.nodeCapacity(type);
    if (!capacity || capacity.drained({}) === "") {
        missing.push(`plan --diff has no drain text for ${type} (tools/changes/diff.ts)`);
    }
    const [file, anchor] = kind.nodes.safeSequence.split("#");
    const headings = (lookups.read(file) ?? "").split("\n").filter((l) => /^#+ /.test(l));
    if (!headings.some((h) => slug(h.replace(/^#+ /, "")) === anchor)) {
        missing.push(`its safe sequence ${kind.nodes.safeSequence} names no section of the docs`);
    }
    const row = `| \`${kind.kind}\` | ${kind.nodes.builtFrom} | ${kind.nodes.rollout} | ${kind.nodes.drain} |`;
    if (!(lookups.read("docs/nodegroups.md") ?? "").split("\n").includes(row)) {
        missing.push(`docs/nodegroups.md's table of kinds has no row ${row}`);
    }
    if (!rendered.has(type)) {
        missing.push(`a group of its example registers no ${type}`);
    }
    return missing;
}

describe("node-group kinds: every registered kind has every part (components/nodegroups/kinds.ts)", function () {
    this.timeout(60_000);
    const rendered = new Map<string, Set<string>>();
    before(async () => {
        const mocks = await useMocks();
        const cluster = around(demoCluster());
        NODE_GROUP_KINDS.forEach((kind, i) => {
            new NodeGroups(`kind${i}`, {
                ...cluster,
                groups: nodeGroupsSchema.parse({ probe: kind.example }),
                privateSubnetIds: ["subnet-p1"],
            });
        });
        await settled();
        NODE_GROUP_KINDS.forEach((kind, i) => {
            rendered.set(kind.kind, new Set(mocks.resources.filter((r) => r.name.startsWith(`kind${i}-`)).map((r) => r.type)));
        });
    });

    it("registers each kind once, under its own name", () => {
        const names = NODE_GROUP_KINDS.map((k) => k.kind);
        expect(names).to.deep.equal([...new Set(names)]);
        expect(names).to.include.members(["managed", "selfManaged"]);
        for (const kind of NODE_GROUP_KINDS) {
            expect(kindOf({ kind: kind.kind } as Parameters<typeof kindOf>[0])).to.equal(kind);
        }
    });

    it("builds each kind on the config half the stack config reads (components/nodegroups/schema.ts), in its order", () => {
        expect(NODE_GROUP_KINDS.map((k) => k.kind)).to.deep.equal(NODE_GROUP_KIND_SCHEMAS.map((k) => k.kind));
        for (const kind of NODE_GROUP_KINDS) {
            const half = kindSchemaOf({ kind: kind.kind } as Parameters<typeof kindSchemaOf>[0]);
            // Each part the stack config reads is the kind's own, not a copy that could drift.
            const own = new Map(Object.entries(kind));
            expect(
                Object.entries(half)
                    .filter(([part, value]) => own.get(part) !== value)
                    .map(([part]) => part),
                kind.kind,
            ).to.deep.equal([]);
        }
    });

    for (const kind of NODE_GROUP_KINDS) {
        it(`${kind.kind}: schema, checks, builder, replacement rules, capacity type, plan fields, drain text, docs, AMI release parameter`, () => {
            expect(rendered.get(kind.kind)?.size ?? 0, "nothing rendered").to.be.greaterThan(0);
            expect(missingParts(kind, rendered.get(kind.kind) ?? new Set())).to.deep.equal([]);
        });
    }

    it("reports every part a kind lacks (the checker can fail)", () => {
        const incomplete: NodeGroupKind = {
            ...managedKind,
            kind: "fleet",
            // Not strict, and its example breaks a shared check.
            schema: z.object({ kind: z.literal("fleet"), ...commonFields }),
            example: { kind: "fleet", instanceTypes: ["m6i.large"], minSize: 3, desiredSize: 1, maxSize: 4 },
            ami: () => ({ setBy: "its launch template" }),
            problems: () => [],
            nodes: { ...managedKind.nodes, type: "aws:ec2/fleet:Fleet", safeSequence: "docs/nodegroups.md#no-such-section" },
            resourceTypes: {},
        };
        const missing = missingParts(incomplete, new Set(["aws:iam/role:Role"]));
        const expected = [
            /example fails the checks: minSize: 3 exceeds desiredSize 1/,
            /accepts an unknown key/,
            /cannot read aws:ec2\/fleet:Fleet as node capacity/,
            /declares nothing of its node type/,
            /aws:ec2\/fleet:Fleet has no replacement rule/,
            /plan text shows no key fields/,
            /no drain text/,
            /names no section of the docs/,
            /table of kinds has no row/,
            /registers no aws:ec2\/fleet:Fleet/,
        ];
        for (const pattern of expected) {
            expect(
                missing.some((m) => pattern.test(m)),
                `${pattern} in:\n${missing.join("\n")}`,
            ).to.equal(true);
        }
        expect(missing).to.have.length(expected.length);
        // A kind whose rule the tools do not answer (another kind's type, a stale table) is caught too.
        const stale = missingParts(managedKind, rendered.get("managed") ?? new Set(), {
            ...REAL,
            replacementRule: (t) => (t === managedKind.nodes.type ? { replaceOn: ["amiType"], source: "stale" } : replacementRule(t)),
        });
        expect(stale.join("\n")).to.match(/no replacement rule with replaceOn and rollsNodesOn/);
        expect(stale.join("\n")).to.match(/does not answer its own rule for aws:eks\/nodeGroup:NodeGroup/);
        // A kind that cannot name its release's AMI parameter leaves the preflight undecided about it.
        const unnamed = missingParts({ ...managedKind, releaseParameter: () => undefined }, rendered.get("managed") ?? new Set());
        expect(unnamed).to.deep.equal([
            "npm run preflight cannot name the public parameter of its example's release 1.34.7-20260512 (releaseParameter, common.schema.ts): undefined",
        ]);
    });

    it("refuses a resource type that both a tool's table and a kind answer, or two kinds answer differently", () => {
        expect(() => withKindFacts({ [managedKind.nodes.type]: "table" }, () => "kind", "a table")).to.throw(
            /aws:eks\/nodeGroup:NodeGroup: in a table and in a node-group kind/,
        );
        expect(withKindFacts({ "aws:ec2/vpc:Vpc": "table" }, () => undefined, "a table")).to.deep.equal({ "aws:ec2/vpc:Vpc": "table" });
        const rival: NodeGroupKind = {
            ...selfManagedKind,
            resourceTypes: { [managedKind.nodes.type]: { replacement: { replaceOn: [], source: "another answer" } } },
        };
        expect(() => kindResourceTypes([managedKind, rival])).to.throw(
            /kinds managed and selfManaged declare aws:eks\/nodeGroup:NodeGroup differently/,
        );
        expect(Object.keys(kindResourceTypes([managedKind, managedKind]))).to.deep.equal([managedKind.nodes.type]);
    });
});
