import { expect } from "chai";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as YAML from "yaml";
import { ConfigError, parseRawConfig, parseStackConfig, PROJECT, STACK_CONFIG_KEYS, StackConfig } from "../../../components/config";
import { endpointRouteProblem } from "../../../components/cluster.schema";
import { readStackFiles, StackFileError } from "../../../tools/render/offline";
import { ROOT, runTool } from "../../mocks";
import { editedFixture, fixtureValues, parseValues, problemsAfter, stackConfig, stacks } from "../../stackFiles";

/** The first node group of a stack's decoded config values. */
function firstGroup(values: Record<string, unknown>): Record<string, unknown> {
    const groups = values[`${PROJECT}:nodeGroups`] as Record<string, Record<string, unknown>>;
    return groups[Object.keys(groups)[0]];
}

/** `1.34` → `1.36` for `by` = 2. */
function bumpMinor(version: string, by: number): string {
    return `1.${Number(version.split(".")[1]) + by}`;
}

describe("stack config", () => {
    let dev: StackConfig;
    let prod: StackConfig;
    before(() => {
        dev = parseValues(fixtureValues("dev"), "dev");
        prod = parseValues(fixtureValues("prod"), "prod");
    });

    it("parses every stack file of the repository", () => {
        for (const stack of stacks()) {
            expect(stackConfig(stack).stack, stack).to.equal(stack);
        }
    });

    it("parses both fixture stacks with defaults applied", () => {
        expect(dev.network.availabilityZones).to.have.length(2);
        expect(prod.network.availabilityZones).to.have.length(3);
        expect(dev.network.natGateways).to.equal("single");
        expect(prod.network.natGateways).to.equal("perAz");
        expect(prod.cluster.endpoint.publicAccess).to.equal(false);
        expect(dev.network.privateSubnetPrefixLength).to.equal(19);
        expect(prod.cluster.serviceCidr).to.equal("172.20.0.0/16");
        expect(Object.keys(dev.namespaces)).to.deep.equal(["dev"]);
        expect(Object.keys(prod.namespaces)).to.deep.equal(["checkout", "prod"]);
        expect(prod.cluster.protect).to.equal(true);
        expect(dev.namespaces.dev.podSecurity).to.deep.equal({ enforce: "baseline", warn: "restricted", audit: "restricted" });
        expect(prod.namespaces.prod.podSecurity).to.deep.equal({ enforce: "restricted", warn: "restricted", audit: "restricted" });
        expect(prod.namespaces.prod.network.egress).to.equal("open");
    });

    it("Pulumi.yaml declares exactly the keys the config module accepts, none as an undeclarable object type", () => {
        const project = YAML.parse(fs.readFileSync(path.join(ROOT, "Pulumi.yaml"), "utf8")) as {
            config: Record<string, { type?: string; description?: string }>;
        };
        const declared = Object.keys(project.config).map((k) => k.replace(`${PROJECT}:`, ""));
        expect(declared).to.have.members(STACK_CONFIG_KEYS);
        for (const [key, decl] of Object.entries(project.config)) {
            expect(decl.description, key).to.be.a("string").and.not.empty;
            expect(decl.type ?? "string", key).to.be.oneOf(["string", "integer", "boolean", "array"]);
        }
    });

    it("lists every problem in one error, each with its key path", () => {
        const problems = problemsAfter((v) => {
            const network = v[`${PROJECT}:network`] as Record<string, unknown>;
            network.vpcCidr = "10.10.0.0/33";
            network.availabilityZones = ["us-east-1a"];
            network.natGateway = "single";
            const ns = (v[`${PROJECT}:namespaces`] as Record<string, Record<string, Record<string, unknown>>>).dev;
            ns.quota.requestsMemory = "8 gigs";
            v[`${PROJECT}:clusterName`] = "9-lives";
        });
        expect(problems).to.include.members([
            `${PROJECT}:network.vpcCidr: must be an IPv4 CIDR with zero host bits, e.g. 10.0.0.0/16`,
            `${PROJECT}:network.natGateway: unknown key (check its spelling against Pulumi.yaml)`,
            `${PROJECT}:namespaces.dev.quota.requestsMemory: must be a Kubernetes quantity, e.g. 500m, 2, 8Gi`,
        ]);
        expect(problems.some((p) => p.startsWith(`${PROJECT}:network.availabilityZones: needs at least 2`))).to.equal(true);
        expect(problems.some((p) => p.startsWith(`${PROJECT}:clusterName:`))).to.equal(true);
        expect(problems).to.have.length(5);
    });

    const cases: [string, (v: Record<string, any>) => void, RegExp][] = [
        ["unknown top-level key", (v) => (v[`${PROJECT}:nodegroups`] = "{}"), /^eks-platform:nodegroups: unknown key/],
        [
            "misspelt project namespace",
            (v) => {
                v["eks-platfrom:karpenter"] = v[`${PROJECT}:karpenter`];
                delete v[`${PROJECT}:karpenter`];
            },
            /^eks-platfrom:karpenter: unknown config namespace "eks-platfrom"/,
        ],
        ["wrong type", (v) => (v[`${PROJECT}:network`].natGateways = 2), /^eks-platform:network\.natGateways: /],
        [
            "subnets that do not fit",
            (v) => (v[`${PROJECT}:network`].privateSubnetPrefixLength = 17),
            /^eks-platform:network\.vpcCidr: subnets do not fit the VPC: .*need \d+ \/17 blocks but [\d./]+ has \d+/,
        ],
        [
            "AZ outside the region",
            (v) => (v[`${PROJECT}:network`].availabilityZones = ["us-east-1a", "eu-west-1b"]),
            /^eks-platform:network\.availabilityZones\[1\]: "eu-west-1b" is not a zone of us-east-1/,
        ],
        [
            "duplicate AZ",
            (v) => (v[`${PROJECT}:network`].availabilityZones = ["us-east-1a", "us-east-1a"]),
            /^eks-platform:network\.availabilityZones\[1\]: "us-east-1a" is listed twice/,
        ],
        [
            "service CIDR overlapping the VPC",
            (v) => (v[`${PROJECT}:cluster`].serviceCidr = "10.10.128.0/20"),
            /^eks-platform:cluster\.serviceCidr: 10\.10\.128\.0\/20 overlaps the VPC/,
        ],
        [
            "public endpoint open to the internet",
            (v) => (v[`${PROJECT}:cluster`].endpoint.publicAccessCidrs = ["0.0.0.0/0"]),
            /^eks-platform:cluster\.endpoint\.publicAccessCidrs\[0\]: opens the API server to the whole internet/,
        ],
        [
            "public endpoint CIDRs that together cover the whole internet",
            (v) => (v[`${PROJECT}:cluster`].endpoint.publicAccessCidrs = ["0.0.0.0/1", "128.0.0.0/1"]),
            /^eks-platform:cluster\.endpoint\.publicAccessCidrs: together cover the whole internet \(0\.0\.0\.0\/0\)/,
        ],
        [
            "public endpoint without CIDRs",
            (v) => (v[`${PROJECT}:cluster`].endpoint.publicAccessCidrs = []),
            /^eks-platform:cluster\.endpoint\.publicAccessCidrs: is empty while publicAccess is true/,
        ],
        [
            "unpinned add-on",
            (v) => (v[`${PROJECT}:cluster`].addons.coreDns = "latest"),
            /^eks-platform:cluster\.addons\.coreDns: must be a pinned add-on version/,
        ],
        [
            "bad Kubernetes version",
            (v) => (v[`${PROJECT}:cluster`].version = "1.34.2"),
            /^eks-platform:cluster\.version: must be a Kubernetes minor version/,
        ],
        ["missing section", (v) => delete v[`${PROJECT}:cluster`], /^eks-platform:cluster: is required/],
        ["missing region", (v) => delete v["aws:region"], /^aws:region: is required/],
        [
            "default request above default limit",
            (v) => (v[`${PROJECT}:namespaces`].dev.containerDefaults.request.cpu = "2"),
            /^eks-platform:namespaces\.dev\.containerDefaults\.request\.cpu: default request 2 exceeds the default limit 500m/,
        ],
        [
            "quota requests above limits",
            (v) => (v[`${PROJECT}:namespaces`].dev.quota.requestsCpu = "16"),
            /^eks-platform:namespaces\.dev\.quota\.requestsCpu: 16 exceeds limitsCpu 8/,
        ],
        [
            "quota requests above limits by less than a float tells apart",
            (v) => (v[`${PROJECT}:namespaces`].dev.quota.requestsCpu = "8.0000000000000001"),
            /^eks-platform:namespaces\.dev\.quota\.requestsCpu: 8\.0000000000000001 exceeds limitsCpu 8/,
        ],
        [
            "default limit above the quota",
            (v) => (v[`${PROJECT}:namespaces`].dev.containerDefaults.limit.memory = "32Gi"),
            /^eks-platform:namespaces\.dev\.containerDefaults\.limit\.memory: 32Gi exceeds the namespace quota limitsMemory 16Gi/,
        ],
        [
            "system namespace",
            (v) => (v[`${PROJECT}:namespaces`]["kube-system"] = v[`${PROJECT}:namespaces`].dev),
            /^eks-platform:namespaces\["kube-system"\]: is a system namespace/,
        ],
        [
            "namespace name that is not a DNS label",
            (v) => (v[`${PROJECT}:namespaces`].Dev_Team = v[`${PROJECT}:namespaces`].dev),
            /^eks-platform:namespaces\.Dev_Team: must be a DNS-1123 label/,
        ],
        [
            "bad namespace label",
            (v) => (v[`${PROJECT}:namespaces`].dev.labels = { "team/a/b": "x" }),
            /^eks-platform:namespaces\.dev\.labels\["team\/a\/b"\]: is not a valid Kubernetes label key/,
        ],
        [
            "an ARN that is not a role",
            (v) => (v[`${PROJECT}:access`].admins = ["arn:aws:iam::123456789012:user/alice"]),
            /^eks-platform:access\.admins\[0\]: must be an IAM role ARN/,
        ],
        [
            "the deployer listed as an admin",
            (v) => (v[`${PROJECT}:access`].admins = [v[`${PROJECT}:access`].deployer]),
            /^eks-platform:access\.admins\[0\]: is the deployer/,
        ],
        [
            "a namespace team role with cluster admin",
            (v) => (v[`${PROJECT}:namespaces`].dev.viewers = [v[`${PROJECT}:access`].admins[0]]),
            /^eks-platform:namespaces\.dev\.viewers\[0\]: already has cluster-wide admin/,
        ],
        [
            "a team ARN with a typo",
            (v) => (v[`${PROJECT}:namespaces`].dev.editors = ["arn:aws:iam::12345:role/team"]),
            /^eks-platform:namespaces\.dev\.editors\[0\]: must be an IAM role ARN/,
        ],
        [
            "a role both editor and viewer",
            (v) => (v[`${PROJECT}:namespaces`].dev.viewers = [...v[`${PROJECT}:namespaces`].dev.editors]),
            /^eks-platform:namespaces\.dev\.viewers\[0\]: is also an editor/,
        ],
        ["an unknown Pod Security level", (v) => (v[`${PROJECT}:podSecurity`].enforce = "strict"), /^eks-platform:podSecurity\.enforce: /],
        ["a missing deployer", (v) => delete v[`${PROJECT}:access`].deployer, /^eks-platform:access\.deployer: is required/],
        ["zero pods", (v) => (v[`${PROJECT}:namespaces`].dev.quota.pods = 0), /^eks-platform:namespaces\.dev\.quota\.pods: /],
        // What AWS would refuse at `pulumi up`, refused first.
        [
            "an instance type that does not exist",
            (v) => (firstGroup(v).instanceTypes = ["m5.huge"]),
            /^eks-platform:nodeGroups\.[\w-]+\.instanceTypes\[0\]: m5\.huge is not an EC2 instance type/,
        ],
        [
            "an ARM instance type on an x86 AMI type",
            (v) => Object.assign(firstGroup(v), { kind: "managed", amiType: "AL2023_x86_64_STANDARD", instanceTypes: ["m7g.large"] }),
            /instanceTypes\[0\]: m7g\.large is arm64 but amiType AL2023_x86_64_STANDARD is x86_64/,
        ],
        [
            "a node label kubelet may not set on itself",
            (v) => (firstGroup(v).labels = { "kubernetes.io/role": "worker" }),
            /^eks-platform:nodeGroups\.[\w-]+\.labels\["kubernetes\.io\/role"\]: is in a kubernetes\.io\/k8s\.io domain kubelet may not set/,
        ],
        [
            "a Kubernetes upgrade two minors at once",
            (v) => {
                const cluster = v[`${PROJECT}:cluster`];
                cluster.version = bumpMinor(cluster.version, 2);
                cluster.addons.kubeProxy = cluster.addons.kubeProxy.replace(/^v\d+\.\d+/, `v${cluster.version}`);
            },
            /releaseVersion: the newest node group runs 1\.\d+ but cluster\.version is 1\.\d+: EKS upgrades the control plane one minor at a time/,
        ],
        [
            "kube-proxy left on the old minor",
            (v) => (v[`${PROJECT}:cluster`].version = bumpMinor(v[`${PROJECT}:cluster`].version, 1)),
            /^eks-platform:cluster\.addons\.kubeProxy: v1\.\d+\.\d+-eksbuild\.\d+ is kube-proxy 1\.\d+ but the cluster runs 1\.\d+: EKS refuses it/,
        ],
        [
            "a log retention CloudWatch does not offer",
            (v) => (v[`${PROJECT}:cluster`].logRetentionDays = 31),
            /^eks-platform:cluster\.logRetentionDays: must be a retention CloudWatch Logs accepts: 1, 3, 5/,
        ],
        [
            "an absurd flow log retention",
            (v) => (v[`${PROJECT}:network`].flowLogs = { enabled: true, retentionDays: 1000000000000 }),
            /^eks-platform:network\.flowLogs\.retentionDays: must be a retention CloudWatch Logs accepts/,
        ],
    ];
    for (const [label, edit, expected] of cases) {
        it(`rejects ${label}, naming the key`, () => {
            const problems = problemsAfter(edit);
            expect(
                problems.some((p) => expected.test(p)),
                problems.join("\n"),
            ).to.equal(true);
        });
    }

    it("the offline plan exits 2 on m5.huge, m7g.large on AL2023_x86_64_STANDARD and a two-minor version jump, registering nothing", async function () {
        this.timeout(180_000);
        const dir = editedFixture("dev", (text) => {
            const stack = YAML.parse(text) as { config: Record<string, any> };
            const groups = stack.config[`${PROJECT}:nodeGroups`];
            const [first, second] = Object.keys(groups);
            groups[first].instanceTypes = ["m5.huge"];
            Object.assign(groups[second], { kind: "managed", amiType: "AL2023_x86_64_STANDARD", instanceTypes: ["m7g.large"] });
            const cluster = stack.config[`${PROJECT}:cluster`];
            cluster.version = bumpMinor(cluster.version, 2);
            cluster.addons.kubeProxy = cluster.addons.kubeProxy.replace(/^v\d+\.\d+/, `v${cluster.version}`);
            return YAML.stringify(stack);
        });
        try {
            const result = await runTool("plan.ts", ["dev"], dir);
            expect(result.code, result.stderr).to.equal(2);
            expect(result.stdout).to.equal("");
            expect(result.stderr).to.include("m5.huge is not an EC2 instance type");
            expect(result.stderr).to.include("m7g.large is arm64 but amiType AL2023_x86_64_STANDARD is x86_64");
            expect(result.stderr).to.match(/EKS upgrades the control plane one minor at a time/);
        } finally {
            fs.rmSync(dir, { recursive: true, force: true });
        }
    });

    it("names the file and line of a stack file that is not YAML", () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stack-"));
        fs.copyFileSync(path.join(ROOT, "Pulumi.yaml"), path.join(dir, "Pulumi.yaml"));
        fs.writeFileSync(
            path.join(dir, "Pulumi.broken.yaml"),
            "config:\n  aws:region: us-east-1\n  eks-platform:network: {vpcCidr: 10.0.0.0/16\n",
        );
        expect(() => readStackFiles(dir, "broken")).to.throw(StackFileError, /Pulumi\.broken\.yaml:\d+: /);
        expect(() => readStackFiles(dir, "missing")).to.throw(StackFileError, /unknown stack "missing" \(stacks here: broken\)/);
    });
});

/** The problems of the fixture dev stack file after `edit` changed its YAML text, as `npm run plan` reads it. */
function problemsOfYaml(edit: (text: string) => string): string[] {
    const dir = editedFixture("dev", edit);
    try {
        parseRawConfig(readStackFiles(dir, "dev").config, "dev");
    } catch (err) {
        expect(err).to.be.instanceOf(ConfigError);
        return (err as ConfigError).problems;
    }
    return [];
}

describe("stack config: errors that say what is wrong", () => {
    const cases: [string, (text: string) => string, string][] = [
        [
            "a word where a number belongs",
            (t) => t.replace("      minSize: 2\n", '      minSize: "two"\n'),
            'eks-platform:nodeGroups.general.minSize: expected number, received string "two"',
        ],
        [
            "an unquoted word where a number belongs",
            (t) => t.replace("      minSize: 2\n", "      minSize: three\n"),
            'eks-platform:nodeGroups.general.minSize: expected number, received string "three"',
        ],
        [
            "a quoted number",
            (t) => t.replace("        pods: 10\n", '        pods: "10"\n'),
            'eks-platform:namespaces.dev.quota.pods: expected number, received string "10"',
        ],
        [
            "one instance type without the list",
            (t) => t.replace("      instanceTypes: [t3.large]", "      instanceTypes: t3.large"),
            'eks-platform:nodeGroups.general.instanceTypes: expected list, received string "t3.large"',
        ],
        [
            "yes for a boolean",
            (t) => t.replace("      enabled: true\n      amiType", '      enabled: "yes"\n      amiType'),
            'eks-platform:nodeGroups.gpu.enabled: expected boolean, received string "yes"',
        ],
        [
            "a CIDR where the network section belongs",
            (t) => t.replace(/ {2}eks-platform:network:\n( {4}.*\n| {6}.*\n)+/, '  eks-platform:network: "10.10.0.0/16"\n'),
            'eks-platform:network: expected map, received string "10.10.0.0/16"',
        ],
        [
            "YAML infinity",
            (t) => t.replace("      maxSize: 6\n", "      maxSize: .inf\n"),
            'eks-platform:nodeGroups.general.maxSize: expected number, received string ".inf"',
        ],
        [
            "YAML not-a-number",
            (t) => t.replace("        pods: 10\n", "        pods: .nan\n"),
            'eks-platform:namespaces.dev.quota.pods: expected number, received string ".nan"',
        ],
        [
            "a fraction where a whole number belongs",
            (t) => t.replace("      minSize: 2\n", "      minSize: 1.5\n"),
            "eks-platform:nodeGroups.general.minSize: expected whole number, received number 1.5",
        ],
        [
            "a missing quota key",
            (t) => t.replace('        requestsCpu: "4"\n', ""),
            "eks-platform:namespaces.dev.quota.requestsCpu: is required",
        ],
        [
            "a value out of an enum",
            (t) => t.replace("natGateways: single", "natGateways: sometimes"),
            'eks-platform:network.natGateways: must be one of "single", "perAz", not string "sometimes"',
        ],
        [
            "a very long wrong value, cut short",
            (t) => t.replace("      minSize: 2\n", `      minSize: ${"x".repeat(80)}\n`),
            `eks-platform:nodeGroups.general.minSize: expected number, received string "${"x".repeat(40)}…"`,
        ],
        [
            "a wrong value with control characters, quoted safely",
            (t) => t.replace("      minSize: 2\n", '      minSize: "a\\u001b[2Jb"\n'),
            'eks-platform:nodeGroups.general.minSize: expected number, received string "a\\u001b[2Jb"',
        ],
    ];
    for (const [label, edit, expected] of cases) {
        it(`reports ${label}`, () => {
            expect(problemsOfYaml(edit)).to.deep.equal([expected]);
        });
    }

    it("names infinity and NaN handed over as numbers", () => {
        const values: Record<string, any> = {};
        for (const [k, v] of Object.entries(fixtureValues("dev"))) {
            if (k.startsWith(`${PROJECT}:`)) {
                values[k.slice(PROJECT.length + 1)] = v;
            }
        }
        values.nodeGroups.general.maxSize = Infinity;
        values.nodeGroups.gpu.maxSize = NaN;
        expect(() => parseStackConfig(values, { stack: "dev", region: "us-east-1" }))
            .to.throw(ConfigError)
            .with.property("problems")
            .that.has.members([
                "eks-platform:nodeGroups.general.maxSize: expected number, received .inf (infinity)",
                "eks-platform:nodeGroups.gpu.maxSize: expected number, received .nan (not a number)",
            ]);
    });
});

describe("stack config: the deployer's route to the API server", () => {
    it("gives `pulumi up` of every stack a route: a public endpoint limited to named CIDRs, or admitted networks", () => {
        expect(stacks().length).to.be.greaterThan(0);
        for (const stack of stacks()) {
            const endpoint = stackConfig(stack).cluster.endpoint;
            expect(endpointRouteProblem(endpoint), stack).to.equal(undefined);
            expect(
                endpoint.publicAccess || endpoint.privateAccessCidrs.length + endpoint.privateAccessSecurityGroupIds.length > 0,
                stack,
            ).to.equal(true);
        }
    });

    it("refuses a private-only endpoint that admits nothing but the nodes, naming cluster.endpoint and the ways to fix it", () => {
        const problems = problemsAfter((v) => {
            const endpoint = (v[`${PROJECT}:cluster`] as Record<string, Record<string, unknown>>).endpoint;
            endpoint.publicAccess = false;
            endpoint.publicAccessCidrs = [];
            endpoint.privateAccessCidrs = [];
            endpoint.privateAccessSecurityGroupIds = [];
        }, "prod");
        const route = problems.find((p) => p.startsWith(`${PROJECT}:cluster.endpoint: is private-only`));
        expect(route, problems.join("\n")).to.be.a("string");
        for (const fix of ["privateAccessCidrs", "privateAccessSecurityGroupIds", "publicAccess: true", "publicAccessCidrs"]) {
            expect(route).to.include(fix);
        }
    });

    it("refuses a missing endpoint section too: the default is private-only", () => {
        const problems = problemsAfter((v) => delete (v[`${PROJECT}:cluster`] as Record<string, unknown>).endpoint, "prod");
        expect(
            problems.some((p) => p.startsWith(`${PROJECT}:cluster.endpoint: is private-only`)),
            problems.join("\n"),
        ).to.equal(true);
    });

    const cases: [string, string, (v: Record<string, any>) => void, RegExp][] = [
        [
            "a private route open to every network",
            "prod",
            (v) => (v[`${PROJECT}:cluster`].endpoint.privateAccessCidrs = ["0.0.0.0/0"]),
            /^eks-platform:cluster\.endpoint\.privateAccessCidrs\[0\]: admits every connected network/,
        ],
        [
            "half the internet as a private route (issue #25, M4), named by its key and index",
            "prod",
            (v) => (v[`${PROJECT}:cluster`].endpoint.privateAccessCidrs = ["10.99.0.0/16", "10.98.0.0/16", "128.0.0.0/1"]),
            /^eks-platform:cluster\.endpoint\.privateAccessCidrs\[2\]: 128\.0\.0\.0\/1 is broader than a \/8/,
        ],
        [
            "a deployer network inside the VPC it creates",
            "prod",
            (v) => (v[`${PROJECT}:cluster`].endpoint.privateAccessCidrs = ["10.20.64.0/24"]),
            /^eks-platform:cluster\.endpoint\.privateAccessCidrs\[0\]: 10\.20\.64\.0\/24 overlaps the VPC 10\.20\.0\.0\/16/,
        ],
        [
            "a security group id with a typo",
            "prod",
            (v) => (v[`${PROJECT}:cluster`].endpoint.privateAccessSecurityGroupIds = ["sg-12345"]),
            /^eks-platform:cluster\.endpoint\.privateAccessSecurityGroupIds\[0\]: must be a security group id/,
        ],
        [
            "a Transit Gateway that would carry no route",
            "dev",
            (v) => (v[`${PROJECT}:network`].transitGatewayId = "tgw-0123456789abcdef0"),
            /^eks-platform:network\.transitGatewayId: routes nothing/,
        ],
        [
            "a Transit Gateway id with a typo",
            "prod",
            (v) => (v[`${PROJECT}:network`].transitGatewayId = "tgw-xyz"),
            /^eks-platform:network\.transitGatewayId: must be a Transit Gateway id/,
        ],
        [
            "the preview role as the deployer",
            "dev",
            (v) => (v[`${PROJECT}:access`].preview = v[`${PROJECT}:access`].deployer),
            /^eks-platform:access\.preview: is the deployer/,
        ],
        [
            "the preview role as an admin",
            "dev",
            (v) => (v[`${PROJECT}:access`].admins = [v[`${PROJECT}:access`].preview]),
            /^eks-platform:access\.admins\[0\]: is the preview role/,
        ],
        [
            "the preview role as a namespace team",
            "dev",
            (v) => (v[`${PROJECT}:namespaces`].dev.viewers = [v[`${PROJECT}:access`].preview]),
            /^eks-platform:namespaces\.dev\.viewers\[0\]: is access\.preview/,
        ],
        [
            "a KMS alias for a root volume",
            "prod",
            (v) => (v[`${PROJECT}:karpenter`].nodeClasses.default.rootVolume.kmsKeyId = "alias/ebs"),
            /^eks-platform:karpenter\.nodeClasses\.default\.rootVolume\.kmsKeyId: must be a KMS key ARN .* or key id/,
        ],
    ];
    for (const [label, stack, edit, expected] of cases) {
        it(`rejects ${label}, naming the key`, () => {
            const problems = problemsAfter(edit, stack);
            expect(
                problems.some((p) => expected.test(p)),
                problems.join("\n"),
            ).to.equal(true);
        });
    }
});
