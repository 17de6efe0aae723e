/**
 * The registry of compute modes (components/compute/index.ts): every registered mode has every
 * part the program needs, and the registry's own checks (one mode at a time, the add-ons a
 * standard cluster needs, the ones a mode runs itself) hold for each of them.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import * as aws from "@pulumi/aws";
import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import { parse } from "yaml";
import { COMPUTE_MODES, computeChoice } from "../../../components/compute";
import type { ComputeMode } from "../../../components/compute/mode";
import { type ComputeStack, REPLACEABLE_ADDONS } from "../../../components/compute/mode.schema";
import { COMPUTE_MODE_SCHEMAS, computeCrossSectionProblems } from "../../../components/compute/schema";
import { STACK_CONFIG_KEYS } from "../../../components/config";
import { ROOT, settled, useMocks } from "../../mocks";

const MODES = COMPUTE_MODES as readonly ComputeMode[];

/** A standard stack's sections: every mode at its default. */
function defaults(): Record<string, unknown> {
    return Object.fromEntries(MODES.map((m) => [m.key, m.schema.parse(undefined)]));
}

/** The rest of a stack: a supported version, no Karpenter, the given add-ons and node groups. */
function stack(addons: ComputeStack["addons"], nodeGroups: ComputeStack["nodeGroups"] = {}): ComputeStack {
    return { clusterName: "demo", cluster: { version: "1.34" }, karpenter: { enabled: false }, addons, nodeGroups };
}

const BOTH = { ebsCsiDriver: {}, loadBalancerController: {} };

describe("compute modes (components/compute): the registry", () => {
    it("registers each mode once, under a stack config key Pulumi.yaml declares", () => {
        const keys = MODES.map((m) => m.key);
        expect(new Set(keys).size, keys.join(", ")).to.equal(keys.length);
        const declared = Object.keys((parse(fs.readFileSync(path.join(ROOT, "Pulumi.yaml"), "utf8")) as { config: object }).config);
        for (const key of keys) {
            expect(STACK_CONFIG_KEYS, key).to.include(key);
            expect(declared, key).to.include(`eks-platform:${key}`);
        }
    });

    it("builds each mode on the config half the stack config reads (components/compute/schema.ts), in its order", () => {
        expect(MODES.map((m) => m.key)).to.deep.equal(COMPUTE_MODE_SCHEMAS.map((m) => m.key));
        MODES.forEach((mode, i) => {
            const half = COMPUTE_MODE_SCHEMAS[i];
            // Each part the stack config reads is the mode's own, not a copy that could drift.
            const own = new Map(Object.entries(mode));
            expect(
                Object.entries(half)
                    .filter(([part, value]) => own.get(part) !== value)
                    .map(([part]) => part),
                mode.key,
            ).to.deep.equal([]);
        });
    });

    for (const mode of MODES) {
        describe(`${mode.key} (${mode.label})`, () => {
            it("is off by default and on with its example", () => {
                expect(mode.active(mode.schema.parse(undefined))).to.equal(false);
                expect(mode.active(mode.schema.parse(mode.example))).to.equal(true);
            });

            const replaced = REPLACEABLE_ADDONS.filter((k) => mode.replacesAddons[k] !== undefined);

            it("says what it runs of the add-ons a standard cluster installs, and replaces at least one (else it is no mode)", () => {
                expect(REPLACEABLE_ADDONS).to.include.members(Object.keys(mode.replacesAddons));
                expect(replaced).to.not.deep.equal([]);
                for (const text of Object.values(mode.replacesAddons)) {
                    expect(text).to.match(/\S/);
                }
            });

            it("refuses, by key, the self-installed add-ons it replaces, and requires only those it does not", () => {
                const on = { ...defaults(), [mode.key]: mode.schema.parse(mode.example) };
                const beside = computeCrossSectionProblems({ ...stack(BOTH), ...on } as never);
                expect(beside.filter((i) => i.path[0] === "addons").map((i) => i.path.join("."))).to.have.members(
                    replaced.map((k) => `addons.${k}`),
                );
                for (const issue of beside.filter((i) => i.path[0] === "addons")) {
                    expect(issue.message).to.contain(mode.key).and.contain(mode.label);
                }
                expect(
                    computeCrossSectionProblems({ ...stack({}), ...on } as never)
                        .filter((i) => i.path[0] === "addons")
                        .map((i) => i.path[1]),
                ).to.have.members(REPLACEABLE_ADDONS.filter((k) => !replaced.includes(k)));
            });

            it("runs the cluster's add-ons and CoreDNS only where no node group runs beside it, and its choice names it", () => {
                const on = { ...defaults(), [mode.key]: mode.schema.parse(mode.example) };
                const alone = computeChoice({ clusterName: "demo", region: "us-east-1", nodeGroups: {}, ...on } as never);
                const beside = computeChoice({
                    clusterName: "demo",
                    region: "us-east-1",
                    nodeGroups: { g: { enabled: true } },
                    ...on,
                } as never);
                expect([alone?.mode, alone?.nodeGroups, beside?.nodeGroups]).to.deep.equal([mode.key, false, true]);
                // Node groups need the VPC CNI, kube-proxy, Pod Identity agent and CoreDNS: a mode never takes them from them.
                expect(beside?.runs.has("clusterAddons")).to.equal(false);
                expect(beside?.runs.has("coreDns")).to.equal(false);
                // What it runs of the add-ons is what its config check refuses beside it, node groups or not.
                for (const key of REPLACEABLE_ADDONS) {
                    expect([alone?.runs.has(key), beside?.runs.has(key)], key).to.deep.equal([
                        replaced.includes(key),
                        replaced.includes(key),
                    ]);
                }
            });

            it("builds its parts of the cluster, the add-ons and the pools under the parents it is given", async () => {
                const mocks = await useMocks("preview");
                const on = { ...defaults(), [mode.key]: mode.schema.parse(mode.example) };
                const choice = computeChoice({ clusterName: "demo", region: "us-east-1", nodeGroups: {}, ...on } as never);
                const parent = new pulumi.ComponentResource("test:index:Parent", "parent");
                const role = new aws.iam.Role("role", { assumeRolePolicy: "{}" }, { parent });
                const provider = new k8s.Provider("k8s", { kubeconfig: "{}" });
                const parts = choice?.withCluster({ name: "c", clusterName: "demo", role, parent });
                const addons = choice?.withAddons({
                    name: "a",
                    clusterName: "demo",
                    provider,
                    keyAdministrator: "arn:aws:iam::1:role/d",
                    parent,
                });
                const pools = choice?.pools({ clusterName: "demo", cluster: parent, provider });
                await settled();
                expect(parts?.dependsOn.length, "the control plane waits on its parts").to.be.greaterThan(0);
                expect(Object.keys(parts?.options ?? {}), "it sets options of the eks.Cluster").to.not.deep.equal([]);
                const children = mocks.resources.filter((r) => r.options.parent === "parent");
                expect(children.length, "its cluster and add-on parts sit under the parents given").to.be.greaterThan(0);
                expect(addons === undefined || addons instanceof pulumi.Resource).to.equal(true);
                expect(pools === undefined || pools instanceof pulumi.Resource).to.equal(true);
            });
        });
    }

    describe("beside a second mode", () => {
        // A stand-in mode registered only here: one that runs the same add-ons, to check what the registry does with two.
        const other: ComputeMode = {
            ...MODES[0],
            key: "otherMode",
            label: "Other Mode",
        };
        const both = [...MODES, other];
        const on = (key: string) => ({
            ...defaults(),
            otherMode: MODES[0].schema.parse(undefined),
            [key]: MODES[0].schema.parse(MODES[0].example),
        });

        it("refuses a second mode turned on, by its key, and chooses the first", () => {
            const sections = { ...on(MODES[0].key), otherMode: MODES[0].schema.parse(MODES[0].example) };
            const issues = computeCrossSectionProblems({ ...stack({}), ...sections } as never, both);
            expect(issues.filter((i) => i.path[0] === "otherMode")).to.deep.equal([
                { path: ["otherMode"], message: `turns Other Mode on beside ${MODES[0].key}: a cluster runs one compute mode` },
            ]);
            expect(computeChoice({ clusterName: "demo", region: "us-east-1", nodeGroups: {}, ...sections } as never, both)?.mode).to.equal(
                MODES[0].key,
            );
            expect(computeCrossSectionProblems({ ...stack({}), ...on(MODES[0].key) } as never, both).map((i) => i.path[0])).to.not.include(
                "otherMode",
            );
        });

        it("requires beside a mode the add-ons it does not replace, naming the modes that do, and installs them", () => {
            // A mode that runs its own storage only.
            const storageOnly: ComputeMode = { ...other, replacesAddons: { ebsCsiDriver: "its own storage" } };
            const sections = { ...defaults(), otherMode: MODES[0].schema.parse(MODES[0].example) };
            const issues = computeCrossSectionProblems({ ...stack({}), ...sections } as never, [storageOnly, ...MODES]);
            expect(issues.filter((i) => i.path[0] === "addons")).to.deep.equal([
                {
                    path: ["addons", "loadBalancerController"],
                    message: `is required: Other Mode does not run its own (only ${MODES.map((m) => m.label).join(" or ")} runs its own)`,
                },
            ]);
            // Where no registered mode runs it, the message names none.
            expect(
                computeCrossSectionProblems({ ...stack({}), ...sections } as never, [storageOnly]).filter((i) => i.path[0] === "addons"),
            ).to.deep.equal([{ path: ["addons", "loadBalancerController"], message: "is required: Other Mode does not run its own" }]);
            const choice = computeChoice({ clusterName: "demo", region: "us-east-1", nodeGroups: {}, ...sections } as never, [storageOnly]);
            expect([choice?.runs.has("ebsCsiDriver"), choice?.runs.has("loadBalancerController")]).to.deep.equal([true, false]);
        });

        it("names every mode that could run an add-on a standard cluster lacks", () => {
            const issues = computeCrossSectionProblems({ ...stack({}), ...defaults(), otherMode: { enabled: false } } as never, both);
            for (const issue of issues) {
                expect(issue.message).to.contain(`${MODES.map((m) => m.label).join(" or ")} or Other Mode runs its own`);
            }
        });
    });

    it("requires, on a standard cluster, every add-on some mode could run, naming the modes", () => {
        const issues = computeCrossSectionProblems({ ...stack({}), ...defaults() } as never);
        expect(issues.map((i) => i.path.join("."))).to.have.members(REPLACEABLE_ADDONS.map((k) => `addons.${k}`));
        for (const issue of issues) {
            for (const mode of MODES) {
                expect(issue.message).to.contain(mode.label);
            }
        }
        expect(computeCrossSectionProblems({ ...stack(BOTH), ...defaults() } as never)).to.deep.equal([]);
        expect(computeChoice({ clusterName: "demo", region: "us-east-1", nodeGroups: {}, ...defaults() } as never)).to.equal(undefined);
    });
});
