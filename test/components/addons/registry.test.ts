/**
 * The registry of add-ons (components/addons/registry.ts): every registered add-on has every part
 * the program, the tools and the rehearsal need, and every pods model of the rehearsal belongs to a
 * registered add-on or to a part of the platform named here. An add-on that forgets one (its config
 * section, its rehearsal model, a preflight config key, a deployer entry for a type it creates,
 * what it provides workloads) fails here, naming the part, not silently in a tool.
 */
import * as k8s from "@pulumi/kubernetes";
import * as pulumi from "@pulumi/pulumi";
import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import { ADDON_SPECS } from "eks-platform-rehearsal";
import type { PlatformAddon } from "../../../components/addons/addon";
import { metricsServer } from "../../../components/addons/metricsServer";
import { REGISTERED_ADDONS } from "../../../components/addons/registry";
import { addonsSchema } from "../../../components/addons/schema";
import { REPLACEABLE_ADDONS } from "../../../components/compute/mode.schema";
import { systemPlacement } from "../../../components/nodegroups/schema";
import { platformOf, type PlanResource } from "../../../tools/manifests/platformFit";
import { ADDON_CONFIG_KEYS } from "../../../tools/preflight/preflightChecks";
import { DEPLOYER_ACTIONS, makesNoAwsCall } from "../../../tools/roles/deployerActions";
import { ROOT, settled, useMocks } from "../../mocks";

/**
 * The rehearsal's pods models that are no registered add-on's, each with the part of the platform
 * that installs it: the cluster add-ons pinned in `cluster.addons` (versions of the cluster itself),
 * Karpenter (compute, a component of its own) and the Node Termination Handler (self-managed groups).
 */
const MODELLED_ELSEWHERE: Readonly<Record<string, string>> = {
    "eks:vpc-cni": "components/cluster.ts (cluster.addons.vpcCni)",
    "eks:kube-proxy": "components/cluster.ts (cluster.addons.kubeProxy)",
    "eks:eks-pod-identity-agent": "components/cluster.ts (cluster.addons.podIdentityAgent)",
    "eks:coredns": "components/addons/coreDns.ts (cluster.addons.coreDns)",
    "helm:karpenter": "components/karpenter/controller.ts",
    "helm:aws-node-termination-handler": "components/nodegroups/nth.ts",
};

/** A source as the rehearsal's models are keyed: `eks:<add-on>` or `helm:<chart>`. */
function sourceKey(source: { eksAddon?: string; helmChart?: string }): string {
    return source.eksAddon !== undefined ? `eks:${source.eksAddon}` : `helm:${String(source.helmChart)}`;
}

/** Where the checker looks an add-on's parts up: the stack config, the tools, the rehearsal. */
interface Lookups {
    sections: readonly string[];
    replaceable: readonly string[];
    modelKeys: readonly string[];
    configKeys: Readonly<Record<string, string>>;
    deployerTypes: readonly string[];
    pulumiYamlAddons: string;
}

const REAL: Lookups = {
    sections: Object.keys(addonsSchema.shape),
    replaceable: REPLACEABLE_ADDONS,
    modelKeys: ADDON_SPECS.map(sourceKey),
    configKeys: ADDON_CONFIG_KEYS,
    deployerTypes: Object.keys(DEPLOYER_ACTIONS),
    pulumiYamlAddons: /eks-platform:addons:\n(?:\s{4,}.*\n)+/.exec(fs.readFileSync(path.join(ROOT, "Pulumi.yaml"), "utf8"))?.[0] ?? "",
};

/** The value at a dotted config key of a stack config holding only `addons`. */
function at(config: unknown, key: string): unknown {
    return key.split(".").reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], config);
}

/**
 * The parts `addon` lacks, one message each (none when it is complete). `rendered` holds what its
 * `install` registered under mocks with its example.
 */
function missingParts(addon: PlatformAddon, rendered: readonly PlanResource[], lookups: Lookups = REAL): string[] {
    const missing: string[] = [];
    if (!lookups.sections.includes(addon.key)) {
        missing.push(`no section addons.${addon.key} in the stack config (components/addons/schema.ts)`);
    }
    if (!lookups.pulumiYamlAddons.includes(`${addon.key}: {`)) {
        missing.push(`Pulumi.yaml's eks-platform:addons does not describe ${addon.key}`);
    }
    if (addon.replaceable !== lookups.replaceable.includes(addon.key)) {
        missing.push(`replaceable is ${addon.replaceable} but REPLACEABLE_ADDONS (components/compute/mode.schema.ts) says otherwise`);
    }
    const key = sourceKey(addon.source);
    if (!lookups.modelKeys.includes(key)) {
        missing.push(`the rehearsal has no pods model of ${key} (ADDON_SPECS, rehearsal/addons.ts)`);
    }
    const installs = rendered.some((r) =>
        "eksAddon" in addon.source
            ? r.type === "aws:eks/addon:Addon" && r.props.addonName === addon.source.eksAddon
            : r.type === "kubernetes:helm.sh/v3:Release" && String(r.props.chart).split("/").pop() === addon.source.helmChart,
    );
    if (!installs) {
        missing.push(`its example installs no ${key}: the rehearsal and the platform fit would not find it`);
    }
    const config = { addons: { [addon.key]: lookups.sections.includes(addon.key) ? parsedExample(addon) : undefined } };
    for (const r of rendered.filter((r) => r.type === "aws:eks/addon:Addon")) {
        const name = String(r.props.addonName);
        const configKey = addon.preflightConfigKeys[name];
        if (configKey === undefined || lookups.configKeys[name] !== configKey) {
            missing.push(`npm run preflight has no config key for the EKS add-on ${name} (preflightConfigKeys)`);
        } else if (at(config, configKey) !== r.props.addonVersion) {
            missing.push(`its preflight config key ${configKey} does not hold the version of ${name}`);
        }
    }
    const aws = [...new Set(rendered.map((r) => r.type).filter((t) => !makesNoAwsCall(t)))];
    for (const type of aws.filter((t) => !addon.resourceTypes.includes(t))) {
        missing.push(`it creates ${type} but does not declare it in resourceTypes`);
    }
    for (const type of addon.resourceTypes.filter((t) => !aws.includes(t))) {
        missing.push(`it declares ${type} in resourceTypes but its example creates none`);
    }
    for (const type of addon.resourceTypes.filter((t) => !lookups.deployerTypes.includes(t))) {
        missing.push(`the deploy role has no actions for ${type} (DEPLOYER_ACTIONS, tools/roles/deployerActions.ts)`);
    }
    missing.push(...unprovided(addon, rendered));
    return missing;
}

/** Its example with every default applied, as the config loader hands it on. */
function parsedExample(addon: PlatformAddon): unknown {
    return addonsSchema.shape[addon.key].parse(addon.example);
}

/** What it says it provides that the platform fit does not see on a plan holding it. */
function unprovided(addon: PlatformAddon, rendered: readonly PlanResource[]): string[] {
    const p = addon.provides;
    const probes: PlanResource[] = [
        ...(p.storageProvisioners ?? []).map((provisioner, i) => ({
            type: "kubernetes:storage.k8s.io/v1:StorageClass",
            name: `probe-${i}`,
            props: { metadata: { name: `probe-${i}` }, provisioner },
        })),
        ...(p.ingressControllers ?? []).map((controller, i) => ({
            type: "kubernetes:networking.k8s.io/v1:IngressClass",
            name: `probe-${i}`,
            props: { metadata: { name: `probe-${i}` }, spec: { controller } },
        })),
    ];
    const platform = platformOf("probe", [...rendered, ...probes], [addon]);
    const missing: string[] = [];
    for (const [name, c] of platform.storageClasses) {
        if (!c.served) {
            missing.push(`the platform fit does not see its storage provisioner ${c.provisioner} served (${name})`);
        }
    }
    for (const [name, c] of platform.ingressClasses) {
        if (!c.served) {
            missing.push(`the platform fit does not see its ingress controller ${c.controller} served (${name})`);
        }
    }
    if (p.loadBalancerClass !== undefined && !platform.loadBalancerClasses.has(p.loadBalancerClass)) {
        missing.push(`the platform fit does not see its load balancer class ${p.loadBalancerClass}`);
    }
    if (p.metricsApi === true && !platform.metricsApi) {
        missing.push("the platform fit does not see the metrics API it provides");
    }
    return missing;
}

describe("add-ons: every registered add-on has every part (components/addons/registry.ts)", function () {
    this.timeout(60_000);
    const rendered = new Map<string, PlanResource[]>();
    before(async () => {
        const mocks = await useMocks("preview");
        const provider = new k8s.Provider("k8s", { kubeconfig: "{}" });
        const cluster = new pulumi.ComponentResource("test:index:Cluster", "cp");
        REGISTERED_ADDONS.forEach((addon, i) => {
            const parent = new pulumi.ComponentResource("test:index:Addon", `addon${i}`);
            addon.install(
                {
                    name: `addon${i}`,
                    parent,
                    clusterName: "acme",
                    region: "us-east-1",
                    vpcId: "vpc-0123",
                    kubernetesVersion: "1.34",
                    provider,
                    cluster,
                    placement: systemPlacement(true),
                    keyAdministrator: "arn:aws:iam::123456789012:role/deployer",
                },
                parsedExample(addon) as never,
            );
        });
        await settled();
        REGISTERED_ADDONS.forEach((addon, i) => {
            rendered.set(
                addon.key,
                mocks.resources.filter((r) => r.name.startsWith(`addon${i}-`)),
            );
        });
    });

    it("registers each add-on once, under its own section, and every section of `addons` has one", () => {
        const keys = REGISTERED_ADDONS.map((a) => a.key);
        expect(keys).to.deep.equal([...new Set(keys)]);
        expect([...keys].sort()).to.deep.equal(Object.keys(addonsSchema.shape).sort());
    });

    for (const addon of REGISTERED_ADDONS) {
        it(`${addon.key} (${addon.label}): config section, rehearsal model, preflight keys, deployer types, platform fit`, () => {
            expect(rendered.get(addon.key)?.length ?? 0, "nothing rendered").to.be.greaterThan(0);
            expect(missingParts(addon, rendered.get(addon.key) ?? [])).to.deep.equal([]);
        });
    }

    it("models in the rehearsal only the registered add-ons and the parts of the platform installed elsewhere", () => {
        const registered = REGISTERED_ADDONS.map((a) => sourceKey(a.source));
        const orphans = ADDON_SPECS.map(sourceKey).filter((k) => !registered.includes(k) && MODELLED_ELSEWHERE[k] === undefined);
        expect(
            orphans,
            "a pods model (rehearsal/addons.ts) of no registered add-on: register the add-on or name its owner here",
        ).to.deep.equal([]);
        for (const [key, owner] of Object.entries(MODELLED_ELSEWHERE)) {
            expect(registered, `${key} is a registered add-on: drop it from MODELLED_ELSEWHERE`).to.not.include(key);
            expect(fs.existsSync(path.join(ROOT, owner.split(" ")[0])), owner).to.equal(true);
        }
    });

    it("reports every part an add-on lacks (the checker can fail)", () => {
        const incomplete = {
            ...metricsServer,
            key: "logAgent",
            replaceable: true,
            source: { eksAddon: "log-agent" },
            preflightConfigKeys: {},
            provides: { storageProvisioners: ["log.example.com"], metricsApi: true },
            resourceTypes: ["aws:eks/addon:Addon", "aws:logs/stream:Stream"],
        } as unknown as PlatformAddon;
        const plan: PlanResource[] = [
            { type: "aws:eks/addon:Addon", name: "a", props: { addonName: "metrics-server", addonVersion: "v0.8.0-eksbuild.2" } },
            { type: "aws:iam/role:Role", name: "r", props: {} },
        ];
        const missing = missingParts(incomplete, plan);
        const expected = [
            /no section addons\.logAgent/,
            /Pulumi\.yaml's eks-platform:addons does not describe logAgent/,
            /replaceable is true but REPLACEABLE_ADDONS/,
            /no pods model of eks:log-agent/,
            /installs no eks:log-agent/,
            /no config key for the EKS add-on metrics-server/,
            /creates aws:iam\/role:Role but does not declare it/,
            /declares aws:logs\/stream:Stream in resourceTypes but its example creates none/,
            /no actions for aws:logs\/stream:Stream/,
            /storage provisioner log\.example\.com/,
            /metrics API/,
        ];
        expect(missing, missing.join("\n")).to.have.length(expected.length);
        expected.forEach((re, i) => expect(missing[i]).to.match(re));
    });
});
