/**
 * The platform profile (tools/manifests/platformProfile.ts) of every stack, as `npm run profile`
 * renders it: valid against the published JSON Schema, true to the stack's plan, read back as
 * written. Each rule of what a profile keeps and how strictly it is read: platformProfile.rules.test.ts.
 */
import { expect } from "chai";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import Ajv2020 from "ajv/dist/2020";
import { planOf, ROOT, runTool } from "../../mocks";
import { stackConfig, stacks } from "../../stackFiles";
import { AUTO_MODE_ANNOTATIONS, AUTO_MODE_COMPONENTS, enabledBuiltInPools, LOAD_BALANCER_CONTROLLER_API } from "eks-platform-kernel";
import { PROFILE_SCHEMA_FILE, profileSchemaText } from "../../../tools/docs/docs";
import { PlatformProfile, PROFILE_FORMAT_VERSION, readProfile } from "../../../tools/manifests/platformProfile";
import type { Plan } from "../../../tools/render/plan";

const CAPACITY = ["aws:eks/nodeGroup:NodeGroup", "aws:autoscaling/group:Group", "kubernetes:karpenter.sh/v1:NodePool"];

function writeTemp(value: unknown): string {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "profile-")), "p.json");
    fs.writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value));
    return file;
}

describe("tools/manifests/platformProfile.ts: the platform profile", function () {
    this.timeout(120_000);

    it("publishes its JSON Schema as npm run docs writes it (run it after changing the profile's shape)", () => {
        expect(fs.readFileSync(path.join(ROOT, PROFILE_SCHEMA_FILE), "utf8")).to.equal(profileSchemaText());
    });

    for (const stack of stacks()) {
        describe(`of the ${stack} stack`, () => {
            let profile: PlatformProfile;
            let plan: Plan;
            before(async () => {
                // The program renders once per process: each profile comes from its own `npm run profile`.
                const [out, planned] = await Promise.all([runTool("profile.ts", [stack]), planOf(stack)]);
                expect(out.code, out.stderr).to.equal(0);
                profile = JSON.parse(out.stdout) as PlatformProfile;
                plan = planned;
            });

            it("validates against the published schema (ajv, draft 2020-12)", () => {
                const schema = JSON.parse(fs.readFileSync(path.join(ROOT, PROFILE_SCHEMA_FILE), "utf8")) as Record<string, unknown>;
                const validate = new Ajv2020({ strict: false }).compile(schema);
                const valid = validate(JSON.parse(JSON.stringify(profile)));
                expect(validate.errors ?? [], JSON.stringify(validate.errors)).to.deep.equal([]);
                expect(valid).to.equal(true);
                expect(profile.formatVersion).to.equal(PROFILE_FORMAT_VERSION);
                expect(profile.stack).to.equal(stack);
            });

            it("holds every node group and NodePool of the plan, its Kubernetes objects but Secrets, and its namespaces with their labels", () => {
                const planned = plan.resources.filter((r) => CAPACITY.includes(r.type));
                // And EKS Auto Mode's built-in pools, which the plan holds only as the cluster's computeConfig.
                expect(profile.nodeGroups).to.have.length(
                    planned.length + enabledBuiltInPools(plan.resources.map((r) => ({ ...r, urn: r.name }))).pools.length,
                );
                for (const r of plan.resources.filter((r) => r.type.startsWith("kubernetes:") && r.props.kind !== "Secret")) {
                    expect(
                        profile.context.some((c) => c.type === r.type && c.name === r.name),
                        `${r.type} ${r.name}`,
                    ).to.equal(true);
                }
                expect(profile.context.some((c) => c.type.endsWith(":Secret") || c.props.kind === "Secret")).to.equal(false);
                const namespaces = plan.resources.filter((r) => r.type === "kubernetes:core/v1:Namespace");
                expect(profile.namespaces.map((n) => n.name).sort()).to.deep.equal(
                    namespaces.map((n) => (n.props.metadata as { name: string }).name).sort(),
                );
                for (const ns of namespaces) {
                    const meta = ns.props.metadata as { name: string; labels: Record<string, string> };
                    expect(profile.namespaces.find((n) => n.name === meta.name)?.labels).to.deep.equal(meta.labels);
                }
            });

            it("serves every StorageClass and IngressClass the stack creates, with EKS Auto Mode's names when its config enables Auto Mode (its default NLB class, its annotations), the controller's otherwise", () => {
                const config = stackConfig(stack);
                expect(profile.storageClasses.length).to.be.greaterThan(0);
                expect(
                    profile.storageClasses.every((c) => c.served),
                    JSON.stringify(profile.storageClasses),
                ).to.equal(true);
                expect(
                    profile.ingressClasses.every((c) => c.served),
                    JSON.stringify(profile.ingressClasses),
                ).to.equal(true);
                const defaultClass = profile.loadBalancerClasses?.find((c) => c.isDefault)?.name;
                if (config.autoMode.enabled) {
                    expect(profile.autoMode?.builtInNodePools).to.deep.equal(config.autoMode.builtInPools);
                    expect(profile.autoMode).to.deep.include({
                        provisioner: AUTO_MODE_COMPONENTS.provisioner,
                        ingressController: AUTO_MODE_COMPONENTS.ingressController,
                        loadBalancerClass: AUTO_MODE_COMPONENTS.loadBalancerClass,
                    });
                    expect(profile.autoMode?.annotations).to.deep.equal(JSON.parse(JSON.stringify(AUTO_MODE_ANNOTATIONS)));
                    expect(profile.autoMode?.undecided.join("\n")).to.include(LOAD_BALANCER_CONTROLLER_API.readinessGateLabel);
                    expect(profile.storageClasses.map((c) => c.provisioner)).to.include(AUTO_MODE_COMPONENTS.provisioner);
                    expect(defaultClass).to.equal(AUTO_MODE_COMPONENTS.loadBalancerClass);
                    expect(profile.loadBalancerController).to.equal(false);
                } else {
                    expect(profile.autoMode).to.equal(null);
                    expect(profile.loadBalancerController).to.equal(true);
                    expect(defaultClass).to.equal(LOAD_BALANCER_CONTROLLER_API.loadBalancerClass);
                }
            });

            it("names the cluster and its Kubernetes version as the plan renders them, and no Pulumi resource object leaks into the context", () => {
                const cluster = plan.resources.find((r) => r.type === "eks:index:Cluster");
                expect(profile.cluster.name).to.equal(cluster?.props.name);
                expect(profile.cluster.kubernetesVersion).to.equal(cluster?.props.version);
                expect(JSON.stringify(profile.context)).to.not.include("__pulumiResource");
            });
        });
    }

    describe("reading a profile", () => {
        let good: PlatformProfile;
        before(async () => {
            const out = await runTool("profile.ts", [stacks()[0]]);
            good = JSON.parse(out.stdout) as PlatformProfile;
        });

        it("reads back what it wrote, with no warning from the same pack version", () => {
            const { profile, warnings } = readProfile(writeTemp(good), ROOT);
            expect(profile).to.deep.equal(JSON.parse(JSON.stringify(good)));
            expect(warnings).to.deep.equal([]);
        });
    });
});
