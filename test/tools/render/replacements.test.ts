/**
 * tools/render/replacements.ts against its sources: the replacement and node-roll rules of every type
 * the program registers (the table's and the node-group kinds') compared with the upstream facts
 * kept in test/fixtures/replacements/upstream.yaml, each with the file and commit it was read at.
 */
import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";
import {
    KUBERNETES_REPLACE_ON,
    NO_RULE_NEEDED,
    noRuleNeeded,
    REPLACEMENT_RULES,
    replacementRule,
} from "../../../tools/render/replacements";
import { kindResourceTypes } from "../../../components/nodegroups/kinds";
import { ROOT } from "../../mocks";
import { constructedClasses, typeOf } from "../../programTypes";

interface Fact {
    resource: string;
    read: string;
    forceNew: string[];
    rollsNodes?: string[];
    notSetByProgram?: string[];
    /** ForceNew only under a condition the table cannot express: never in replaceOn. */
    conditional?: string[];
    /** ForceNew, but out of the program's reach through this type: never in replaceOn. */
    notReachable?: string[];
    /** Upstream attribute -> input path, where the input is not the camelCase attribute. */
    inputs?: Record<string, string>;
    /** Inputs the table replaces on beyond upstream, each with its reason. */
    extra?: { input: string; reason: string }[];
    /** Inputs @pulumi/aws has that the schema read does not. */
    unread?: string[];
    /** Inputs the API refuses to change in place and the provider does not replace on. */
    refused?: string[];
}

const FACTS = YAML.parse(fs.readFileSync(path.join(ROOT, "test", "fixtures", "replacements", "upstream.yaml"), "utf8")) as {
    provider: string;
    types: Record<string, Fact>;
    notYetChecked: { type: string; reason: string }[];
};

/** An upstream attribute path as pulumi-aws names the input: `launch_template.id` → `launchTemplate.id`. */
const camel = (attribute: string) => attribute.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** The input path a fact's upstream attribute is, for the type's resource. */
const inputOf = (fact: Fact, attribute: string) => fact.inputs?.[attribute] ?? camel(attribute);

/** What the table must replace on: upstream's ForceNew within reach, as inputs, and the reasoned extras. */
function expectedReplaceOn(fact: Fact): string[] {
    const out = new Set(fact.notReachable ?? []);
    return [...fact.forceNew.filter((a) => !out.has(a)).map((a) => inputOf(fact, a)), ...(fact.extra ?? []).map((e) => e.input)].sort();
}

/**
 * The top-level arguments of a resource as its SDK declares them: `aws:ec2/vpc:Vpc` -> @pulumi/aws
 * ec2/vpc.d.ts VpcArgs, `kubernetes:storage.k8s.io/v1:StorageClass` -> @pulumi/kubernetes
 * storage/v1/storageClass.d.ts StorageClassArgs; undefined for a component's own arguments.
 */
function sdkArgs(type: string): Set<string> | undefined {
    const aws = /^aws:([a-z0-9]+)\/([a-zA-Z0-9]+):([A-Za-z0-9]+)$/.exec(type);
    const k8s = /^kubernetes:([a-z0-9]+)[a-z0-9.]*\/(v[0-9a-z]+):([A-Za-z0-9]+)$/.exec(type);
    const [file, name] = aws
        ? [path.join("aws", aws[1], `${aws[2]}.d.ts`), aws[3]]
        : k8s
          ? [path.join("kubernetes", k8s[1], k8s[2], `${k8s[3][0].toLowerCase()}${k8s[3].slice(1)}.d.ts`), k8s[3]]
          : [undefined, undefined];
    if (file === undefined) {
        return undefined;
    }
    const dts = fs.readFileSync(path.join(ROOT, "node_modules", "@pulumi", file), "utf8");
    const body = dts.split(`export interface ${name}Args {`)[1].split("\n}")[0];
    return new Set([...body.matchAll(/^ {4}([A-Za-z0-9]+)\??:/gm)].map((a) => a[1]));
}

describe("tools/render/replacements.ts against upstream (test/fixtures/replacements/upstream.yaml)", () => {
    it("names the provider version the facts were read for, and the one package.json pins", () => {
        const pinned = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> })
            .dependencies["@pulumi/aws"];
        expect(FACTS.provider).to.include(`@pulumi/aws ${pinned}`);
    });

    it("holds a fact, or a note that it is still unchecked, for every type the program registers, and for no other", () => {
        const covered = [...Object.keys(FACTS.types), ...FACTS.notYetChecked.map((n) => n.type)];
        expect(covered).to.have.members(Object.keys(REPLACEMENT_RULES));
        expect(new Set(covered).size).to.equal(covered.length);
    });

    for (const [type, fact] of Object.entries(FACTS.types)) {
        const upstream = type.startsWith("kubernetes:")
            ? `what pulumi-kubernetes forces new on ${fact.resource}`
            : `what ${fact.resource} marks ForceNew (terraform-provider-aws ${fact.resource} schema, pulumi-aws camelCase inputs)`;
        it(`${type}: replaces exactly on ${upstream}`, () => {
            const rule = REPLACEMENT_RULES[type];
            expect(rule, type).to.not.equal(undefined);
            expect([...rule.replaceOn].sort()).to.deep.equal(expectedReplaceOn(fact));
            expect(rule.source).to.include(fact.resource);
            // The source names what it replaces on, in upstream's spelling, so a reader can check it.
            // (The node-group kinds' sources live with the kinds, components/nodegroups/*.ts.)
            const named = /every attribute/.test(rule.source) || type in kindResourceTypes() ? [] : fact.forceNew;
            for (const attribute of named.filter((x) => !(fact.notReachable ?? []).includes(x))) {
                expect(rule.source, `${type}: its source names ${attribute}`).to.include(attribute.split(".").pop());
            }
            expect(fact.read, type).to.match(/^(hashicorp\/terraform-provider-aws|pulumi\/)\S* \S+\.(go|ts|markdown)/);
            expect(fact.read, `${type}: the commit or stored version it was read at`).to.match(/@ [0-9a-f]{8,}|stored version \d+/);
        });

        it(`${type}: replaces on no input that upstream forces only under a condition, or that is out of the program's reach`, () => {
            const rule = REPLACEMENT_RULES[type];
            for (const attribute of [...(fact.conditional ?? []), ...(fact.notReachable ?? [])]) {
                expect(rule.replaceOn, `${type} ${attribute}`).to.not.include(inputOf(fact, attribute));
            }
            for (const extra of fact.extra ?? []) {
                expect(extra.reason, `${type} ${extra.input}: a reason`).to.have.length.above(20);
            }
        });

        const args = sdkArgs(type);
        if (args) {
            it(`${type}: every input it replaces on, rolls nodes on or is refused on, and every input named unread, is an argument of its SDK's ${type.split(":")[2]}Args`, () => {
                const rule = REPLACEMENT_RULES[type];
                for (const input of [...rule.replaceOn, ...(rule.rollsNodesOn ?? []), ...(rule.refusedOn ?? []), ...(fact.unread ?? [])]) {
                    expect([...args], `${type} ${input}`).to.include(input.split(".")[0]);
                }
            });
        }

        it(`${type}: refuses exactly what the API forbids changing and the provider does not replace on${fact.refused ? ` (${fact.refused.join(", ")}: the update fails)` : " (nothing)"}`, () => {
            const rule = REPLACEMENT_RULES[type];
            expect([...(rule.refusedOn ?? [])].sort()).to.deep.equal([...(fact.refused ?? [])].sort());
            for (const input of rule.refusedOn ?? []) {
                expect(rule.replaceOn, `${type} ${input}: refused, not replaced`).to.not.include(input);
                expect(rule.source, `${type}: its source names ${input}`).to.include(input);
            }
        });

        it(`${type}: rolls nodes exactly on what upstream rolls them on${fact.rollsNodes ? "" : " (nothing)"}`, () => {
            const expected = (fact.rollsNodes ?? []).map(camel).sort();
            expect([...(REPLACEMENT_RULES[type].rollsNodesOn ?? [])].sort()).to.deep.equal(expected);
            // An attribute the program never sets is named as such, not silently dropped.
            for (const unset of fact.notSetByProgram ?? []) {
                expect(expected, type).to.not.include(camel(unset));
            }
        });
    }

    it("has a rule, or a reason it needs none, for every type the program's source constructs (an unlisted type would diff as update-only)", () => {
        const constructed = constructedClasses();
        // The scan sees what it must: the types once missing from the table among them.
        expect(constructed).to.include.members([
            "aws ec2transitgateway.VpcAttachment",
            "aws iam.ServiceLinkedRole",
            "aws kms.Grant",
            "eks Cluster",
            "k8s helm.v3.Release",
            "k8s Provider",
        ]);
        const missing = constructed.map(typeOf).filter((type) => replacementRule(type) === undefined && noRuleNeeded(type) === undefined);
        expect(missing, "types with neither a rule in tools/render/replacements.ts nor an entry in NO_RULE_NEEDED").to.deep.equal([]);
        for (const type of [
            "aws:ec2transitgateway/vpcAttachment:VpcAttachment",
            "aws:iam/serviceLinkedRole:ServiceLinkedRole",
            "aws:kms/grant:Grant",
        ]) {
            expect(REPLACEMENT_RULES[type], type).to.not.equal(undefined);
        }
    });

    it("needs no rule only for the program's own components and the Kubernetes provider (replaced only with its cluster), each with its reason", () => {
        expect(Object.keys(NO_RULE_NEEDED).sort()).to.deep.equal(["platform:", "pulumi:providers:kubernetes"]);
        expect(noRuleNeeded("platform:network:Network"))
            .to.equal(NO_RULE_NEEDED["platform:"])
            .and.match(/component resources: no cloud state/);
        expect(noRuleNeeded("pulumi:providers:kubernetes")).to.match(/only when the kubeconfig's active cluster changes/);
        // A prefix only where the key ends in ':'; an exact type otherwise.
        expect(noRuleNeeded("pulumi:providers:kubernetes2")).to.equal(undefined);
        expect(noRuleNeeded("pulumi:providers:aws")).to.equal(undefined);
        expect(noRuleNeeded("platformx:a:B")).to.equal(undefined);
        expect(noRuleNeeded("aws:kms/grant:Grant")).to.equal(undefined);
        for (const [key, reason] of Object.entries(NO_RULE_NEEDED)) {
            expect(reason, key).to.have.length.above(40);
            expect(
                Object.keys(REPLACEMENT_RULES).filter((t) => noRuleNeeded(t) !== undefined),
                "a type with a rule and an exemption",
            ).to.deep.equal([]);
        }
    });

    it("a type that replaces on nothing says so, and why, in its source (aws_internet_gateway: vpc_id detaches and re-attaches in place, resourceInternetGatewayUpdate)", () => {
        const none = Object.entries(REPLACEMENT_RULES).filter(([, rule]) => rule.replaceOn.length === 0);
        expect(none.map(([type]) => type)).to.include("aws:ec2/internetGateway:InternetGateway");
        for (const [type, rule] of none) {
            expect(rule.source, type).to.match(/ForceNew on nothing \(\w+ .{8,}\)/);
        }
        expect(REPLACEMENT_RULES["aws:ec2/internetGateway:InternetGateway"].source).to.include("nothing (vpc_id re-attaches)");
    });

    it("a rule that replaces on an input upstream does not force says why in its source (aws_eks_cluster: vpc_config.vpc_id is computed, but EKS refuses subnets of another VPC)", () => {
        const extras = Object.entries(FACTS.types).flatMap(([type, fact]) => (fact.extra ?? []).map((e) => [type, e.input] as const));
        expect(extras).to.deep.include(["eks:index:Cluster", "vpcId"]);
        for (const [type, input] of extras) {
            const source = REPLACEMENT_RULES[type].source.toLowerCase();
            // `vpcId` → "vpc": the source names what the input is, or says every attribute forces new.
            const subject = input.replace(/Id$/, "").toLowerCase();
            expect(source.includes(subject) || source.includes("every attribute"), `${type} ${input}: ${source}`).to.equal(true);
        }
    });

    it("leaves no type unchecked without a reason", () => {
        for (const n of FACTS.notYetChecked) {
            expect(n.reason, n.type).to.be.a("string").and.have.length.above(20);
        }
    });

    it("the pulumi-eks Cluster component replaces its child on a new name, service role, service CIDR or IP family, not on a new encryption key (aws_eks_cluster encryption_config: ForceNew only on removal)", () => {
        const rule = REPLACEMENT_RULES["eks:index:Cluster"];
        expect(rule.replaceOn).to.include.members(["name", "serviceRole", "kubernetesServiceIpAddressRange", "ipFamily"]);
        expect(rule.replaceOn).to.not.include("encryptionConfigKeyArn");
        expect(rule.replaceOn).to.not.include("bootstrapSelfManagedAddons");
    });

    it("replaces any other Kubernetes object on a new name or namespace, and knows nothing of other types (pulumi-kubernetes: metadata.name and .namespace are immutable)", () => {
        expect(replacementRule("kubernetes:core/v1:ConfigMap")).to.deep.equal({
            replaceOn: ["metadata.name", "metadata.namespace"],
            source: "pulumi-kubernetes: metadata.name and metadata.namespace are immutable",
        });
        expect(KUBERNETES_REPLACE_ON).to.deep.equal(["metadata.name", "metadata.namespace"]);
        // A Helm release is no Kubernetes object: its own entry, and no fallback for another version.
        expect(replacementRule("kubernetes:helm.sh/v3:Release")).to.equal(REPLACEMENT_RULES["kubernetes:helm.sh/v3:Release"]);
        expect(replacementRule("kubernetes:helm.sh/v4:Chart")).to.equal(undefined);
        expect(replacementRule("aws:s3/bucket:Bucket")).to.equal(undefined);
        expect(replacementRule("aws:eks/nodeGroup:NodeGroup")).to.equal(REPLACEMENT_RULES["aws:eks/nodeGroup:NodeGroup"]);
    });
});
