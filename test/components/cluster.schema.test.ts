/**
 * components/cluster.schema.ts rule by rule, on a small hand-written `cluster` section: the
 * deployer's route to the API endpoint (CIDRs or security groups), the public endpoint's CIDRs,
 * the GitHub-hosted runner switch, and the pinned versions.
 */
import { expect } from "chai";
import { clusterSchema, endpointRouteProblem } from "../../components/cluster.schema";

const ADDONS = {
    vpcCni: "v1.20.4-eksbuild.1",
    coreDns: "v1.12.4-eksbuild.1",
    kubeProxy: "v1.34.1-eksbuild.2",
    podIdentityAgent: "v1.3.8-eksbuild.2",
};
const ROUTE = { privateAccessCidrs: ["10.99.0.0/16"] };

/** A `cluster` section: version 1.34, pinned add-ons, the endpoint given (a private route by default; `null`: no endpoint key). */
const section = (endpoint: Record<string, unknown> | null = ROUTE, more: Record<string, unknown> = {}) => ({
    version: "1.34",
    supportType: "EXTENDED",
    addons: ADDONS,
    ...(endpoint === null ? {} : { endpoint }),
    ...more,
});

/** Every problem as `path: message`. */
function problems(value: unknown): string[] {
    const result = clusterSchema.safeParse(value);
    return result.success ? [] : result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
}

const parsed = (value: unknown) => clusterSchema.parse(value);

describe("components/cluster.schema.ts: the upgrade policy is chosen per stack", () => {
    it("requires supportType, STANDARD or EXTENDED (EKS UpgradePolicy), naming both choices when it is missing or misspelt", () => {
        for (const value of [undefined, "extended", "STANDARD_SUPPORT"]) {
            const given = section(ROUTE, { supportType: value });
            expect(problems(given), String(value)).to.deep.equal([
                "supportType: choose STANDARD (EKS upgrades the control plane itself at the end of standard support) or EXTENDED (the version stays, billed as extended support); see docs/changes.md#kubernetes-upgrades",
            ]);
        }
        expect(parsed(section(ROUTE, { supportType: "STANDARD" })).supportType).to.equal("STANDARD");
    });
});

describe("components/cluster.schema.ts: the deployer's route to the API server", () => {
    it("admits a security-group-only route: a runner's security group on the private endpoint is a route without any CIDR (EKS cluster security group ingress on 443 from a source group)", () => {
        const endpoint = { privateAccessSecurityGroupIds: ["sg-0123456789abcdef0"] };
        expect(problems(section(endpoint))).to.deep.equal([]);
        expect(parsed(section(endpoint)).endpoint).to.deep.equal({
            publicAccess: false,
            publicAccessCidrs: [],
            privateAccessCidrs: [],
            privateAccessSecurityGroupIds: ["sg-0123456789abcdef0"],
            githubHostedRunners: false,
        });
        expect(
            endpointRouteProblem({ publicAccess: false, privateAccessCidrs: [], privateAccessSecurityGroupIds: ["sg-01234567"] }),
        ).to.equal(undefined);
    });

    it("takes each of a public endpoint, an admitted network or an admitted security group as a route, and nothing else (EKS endpoint access: private-only admits the cluster's own nodes)", () => {
        const none = { publicAccess: false, privateAccessCidrs: [], privateAccessSecurityGroupIds: [] };
        expect(endpointRouteProblem(none)).to.match(/^is private-only and admits nothing but the cluster's own nodes: `pulumi up`/);
        expect(endpointRouteProblem({ ...none, publicAccess: true })).to.equal(undefined);
        expect(endpointRouteProblem({ ...none, privateAccessCidrs: ["10.99.0.0/16"] })).to.equal(undefined);
        expect(endpointRouteProblem({ ...none, privateAccessSecurityGroupIds: ["sg-01234567"] })).to.equal(undefined);
    });

    it("defaults the endpoint to private-only with no route, and refuses that at cluster.endpoint", () => {
        for (const endpoint of [null, {}]) {
            const found = problems(section(endpoint));
            expect(found, JSON.stringify(endpoint)).to.have.length(1);
            expect(found[0]).to.equal(
                "endpoint: is private-only and admits nothing but the cluster's own nodes: `pulumi up` creates Kubernetes resources from " +
                    "wherever it runs and would fail on every one of them after the control plane exists. Give the deployer a route: " +
                    "privateAccessCidrs (a tooling VPC peered or behind a Transit Gateway, a VPN) or privateAccessSecurityGroupIds " +
                    "(a self-hosted runner's security group), and run CI there; or set publicAccess: true with publicAccessCidrs " +
                    "that include the runner's egress addresses",
            );
        }
    });

    it("takes security group ids as EC2 prints them: sg- and 8 or 17 lower-case hex digits, nothing around them (EC2 resource ids)", () => {
        for (const id of ["sg-01234567", "sg-0123456789abcdef0"]) {
            expect(problems(section({ privateAccessSecurityGroupIds: [id] })), id).to.deep.equal([]);
        }
        for (const id of ["sg-0123456", "sg-012345678", "sg-0123456789ABCDEF0", "xsg-01234567", "sg-01234567 ", "sg-0123456789abcdef0a"]) {
            expect(problems(section({ privateAccessSecurityGroupIds: [id] })), id).to.deep.equal([
                "endpoint.privateAccessSecurityGroupIds.0: must be a security group id such as sg-0123456789abcdef0",
            ]);
        }
    });
});

describe("components/cluster.schema.ts: the public endpoint's CIDRs", () => {
    it("needs CIDRs when the endpoint is public, and none when it is not (EKS publicAccessCidrs default 0.0.0.0/0)", () => {
        expect(problems(section({ publicAccess: true }))).to.deep.equal([
            "endpoint.publicAccessCidrs: is empty while publicAccess is true: list the CIDRs allowed to reach the API server",
        ]);
        expect(problems(section({ ...ROUTE, publicAccessCidrs: ["203.0.113.0/24"] }))).to.deep.equal([
            "endpoint.publicAccessCidrs: is set while publicAccess is false; remove it or enable publicAccess",
        ]);
        expect(problems(section({ publicAccess: true, publicAccessCidrs: ["203.0.113.0/24"] }))).to.deep.equal([]);
    });

    it("refuses 0.0.0.0/0 on either side, naming the entry", () => {
        expect(problems(section({ publicAccess: true, publicAccessCidrs: ["203.0.113.0/24", "0.0.0.0/0"] }))).to.deep.equal([
            "endpoint.publicAccessCidrs.1: opens the API server to the whole internet; list the CIDRs that need it",
        ]);
        expect(problems(section({ privateAccessCidrs: ["10.99.0.0/16", "0.0.0.0/0"] }))).to.deep.equal([
            "endpoint.privateAccessCidrs.1: admits every connected network to the API server; list the deployer's networks",
        ]);
    });

    it("refuses public CIDRs that add up to the whole internet, and only when they do", () => {
        const halves = ["0.0.0.0/1", "128.0.0.0/1"];
        expect(problems(section({ publicAccess: true, publicAccessCidrs: halves }))).to.deep.equal([
            "endpoint.publicAccessCidrs: together cover the whole internet (0.0.0.0/0); list the CIDRs that need the API server",
        ]);
        // One half alone, or both halves short of an address block, is not everything.
        expect(problems(section({ publicAccess: true, publicAccessCidrs: ["0.0.0.0/1"] }))).to.deep.equal([]);
        expect(problems(section({ publicAccess: true, publicAccessCidrs: ["0.0.0.0/1", "128.0.0.0/2"] }))).to.deep.equal([]);
        // A /0 among them is named once, as itself.
        expect(problems(section({ publicAccess: true, publicAccessCidrs: ["0.0.0.0/0", "0.0.0.0/1"] }))).to.deep.equal([
            "endpoint.publicAccessCidrs.0: opens the API server to the whole internet; list the CIDRs that need it",
        ]);
    });
});

describe("components/cluster.schema.ts: GitHub-hosted runners", () => {
    it("defaults githubHostedRunners to false, with or without an endpoint section (tools/ci/runners.ts then needs RUNNER_<STACK> for deploys and RUNNER_PREVIEW_<STACK> for previews)", () => {
        expect(parsed(section()).endpoint.githubHostedRunners).to.equal(false);
        expect(parsed(section({ privateAccessSecurityGroupIds: ["sg-01234567"] })).endpoint.githubHostedRunners).to.equal(false);
        expect(clusterSchema.shape.endpoint.parse(undefined).githubHostedRunners).to.equal(false);
    });

    it("lets GitHub-hosted runners in only through the public endpoint (GitHub larger runners: static egress ranges; hosted runners have no route to a private endpoint)", () => {
        const open = { publicAccess: true, publicAccessCidrs: ["203.0.113.0/24"], githubHostedRunners: true };
        expect(problems(section(open))).to.deep.equal([]);
        expect(parsed(section(open)).endpoint.githubHostedRunners).to.equal(true);
        expect(problems(section({ ...ROUTE, githubHostedRunners: true }))).to.deep.equal([
            "endpoint.githubHostedRunners: is true while publicAccess is false: GitHub's hosted runners reach the API server only " +
                "through the public endpoint, from the static egress ranges of larger runners listed in publicAccessCidrs; enable " +
                "publicAccess with those ranges, or set githubHostedRunners: false and point RUNNER_<STACK> at a runner with a private route",
        ]);
    });
});

describe("components/cluster.schema.ts: versions and defaults", () => {
    it("applies the documented defaults: all five log types, 90 days, 172.20.0.0/16, unprotected", () => {
        const c = parsed(section());
        expect(c.logTypes).to.deep.equal(["api", "audit", "authenticator", "controllerManager", "scheduler"]);
        expect(c.logRetentionDays).to.equal(90);
        expect(c.serviceCidr).to.equal("172.20.0.0/16");
        expect(c.protect).to.equal(false);
    });

    it("takes a Kubernetes minor such as 1.34, nothing looser", () => {
        for (const version of ["1.3", "1.345", "v1.34", "1.34.1", " 1.34"]) {
            expect(problems(section(ROUTE, { version })), version).to.deep.include(
                "version: must be a Kubernetes minor version such as 1.34",
            );
        }
    });

    it("takes pinned add-on versions only, as describe-addon-versions prints them", () => {
        for (const vpcCni of ["v1.20.14-eksbuild.12", "v10.0.1-eksbuild.1"]) {
            expect(problems(section(ROUTE, { addons: { ...ADDONS, vpcCni } })), vpcCni).to.deep.equal([]);
        }
        for (const vpcCni of ["v1.20.4", "1.20.4-eksbuild.1", "v1.20.4-eksbuild.1 ", "xv1.20.4-eksbuild.1", "latest"]) {
            expect(problems(section(ROUTE, { addons: { ...ADDONS, vpcCni } })), vpcCni).to.deep.equal([
                "addons.vpcCni: must be a pinned add-on version such as v1.20.4-eksbuild.1 (see `aws eks describe-addon-versions`)",
            ]);
        }
    });

    it("refuses a kube-proxy build of another minor than the cluster's (EKS: each kube-proxy build serves one Kubernetes minor)", () => {
        expect(problems(section(ROUTE, { addons: { ...ADDONS, kubeProxy: "v1.33.3-eksbuild.1" } }))).to.deep.equal([
            "addons.kubeProxy: v1.33.3-eksbuild.1 is kube-proxy 1.33 but the cluster runs 1.34: EKS refuses it; pin the 1.34 build (aws eks describe-addon-versions --addon-name kube-proxy --kubernetes-version 1.34)",
        ]);
    });

    it("names a malformed CIDR or add-on version once, as malformed, with no follow-on problem from the checks that read it", () => {
        expect(problems(section({ publicAccess: true, publicAccessCidrs: ["0.0.0.0/1", "bad"] }))).to.deep.equal([
            "endpoint.publicAccessCidrs.1: must be an IPv4 CIDR with zero host bits, e.g. 10.0.0.0/16",
        ]);
        expect(problems(section({ privateAccessCidrs: ["bad"] }))).to.deep.equal([
            "endpoint.privateAccessCidrs.0: must be an IPv4 CIDR with zero host bits, e.g. 10.0.0.0/16",
        ]);
        expect(problems(section(ROUTE, { addons: { ...ADDONS, kubeProxy: "latest" } }))).to.deep.equal([
            "addons.kubeProxy: must be a pinned add-on version such as v1.20.4-eksbuild.1 (see `aws eks describe-addon-versions`)",
        ]);
    });
});

describe("components/cluster.schema.ts: the private endpoint's CIDRs (issue #25, M4)", () => {
    const priv = (privateAccessCidrs: string[], more: Record<string, unknown> = {}) => problems(section({ privateAccessCidrs }, more));

    it("refuses a block broader than a /8 (RFC 1918's largest private range): 128.0.0.0/1 is half the internet, admitted on 443 and routed to the Transit Gateway", () => {
        for (const block of ["128.0.0.0/1", "10.0.0.0/7", "0.0.0.0/4"]) {
            expect(priv(["10.99.0.0/16", block]), block).to.deep.equal([
                `endpoint.privateAccessCidrs.1: ${block} is broader than a /8, the largest private range (RFC 1918's 10.0.0.0/8): it holds public address space, which the API server's security group would admit on 443 and every route table would send to the Transit Gateway; list the deployer's networks, each a /8 or narrower`,
            ]);
        }
    });

    it("accepts RFC 1918 ranges up to their own size, 10.0.0.0/8 included", () => {
        expect(priv(["10.0.0.0/8", "172.16.0.0/14", "192.168.0.0/16", "100.64.0.0/10"])).to.deep.equal([]);
        expect(priv(["172.16.0.0/12"], { serviceCidr: "10.100.0.0/16" })).to.deep.equal([]);
    });

    it("refuses link-local addresses (169.254.0.0/16, RFC 3927): never routed beyond their link, so no deployer connects from them", () => {
        for (const block of ["169.254.0.0/16", "169.254.169.254/32", "169.0.0.0/8"]) {
            expect(priv([block]), block).to.deep.equal([
                `endpoint.privateAccessCidrs.0: ${block} holds link-local addresses (169.254.0.0/16), which are never routed beyond their own link (instance metadata and the Amazon DNS resolver answer there): no deployer connects from them; list the deployer's routed networks`,
            ]);
        }
        expect(priv(["169.255.0.0/16", "169.253.0.0/16"])).to.deep.equal([]);
    });

    it("refuses a block overlapping the service CIDR (EKS: the service range must overlap no connected network), the default one or the stack's", () => {
        expect(priv(["10.99.0.0/16", "172.20.128.0/24"])).to.deep.equal([
            "endpoint.privateAccessCidrs.1: 172.20.128.0/24 overlaps the service CIDR 172.20.0.0/16: those are the cluster's Service addresses, which kube-proxy on every node rewrites to pods, so nodes and pods never reach the deployer's network there (EKS asks for a service CIDR that overlaps no connected network); list the deployer's networks outside it, or move serviceCidr",
        ]);
        expect(priv(["172.16.0.0/12"], { serviceCidr: "10.100.0.0/16" })).to.deep.equal([]);
        expect(priv(["10.0.0.0/8"], { serviceCidr: "10.100.0.0/16" })[0]).to.match(
            /^endpoint\.privateAccessCidrs\.0: 10\.0\.0\.0\/8 overlaps the service CIDR 10\.100\.0\.0\/16: /,
        );
        // Adjacent, not overlapping.
        expect(priv(["172.21.0.0/16", "172.19.0.0/16"])).to.deep.equal([]);
    });

    it("refuses a block listed twice, however it is spelt, naming the second entry and the first", () => {
        expect(priv(["10.99.0.0/16", "10.98.0.0/16", " 10.99.0.0/16", "10.98.0.0/16"])).to.deep.equal([
            "endpoint.privateAccessCidrs.2:  10.99.0.0/16 is listed twice (also at [0]); list each network once",
            "endpoint.privateAccessCidrs.3: 10.98.0.0/16 is listed twice (also at [1]); list each network once",
        ]);
        expect(priv(["10.99.0.0/16", "10.99.0.0/17"])).to.deep.equal([]);
    });

    it("names every bad entry at once, each once per broken rule", () => {
        // 128.0.0.0/1 also holds link-local and service addresses: it is named for its size alone, narrowing it is the fix.
        expect(priv(["128.0.0.0/1", "169.254.0.0/16", "128.0.0.0/1", "172.20.0.0/24"]).map((p) => p.split(": ")[0])).to.deep.equal([
            "endpoint.privateAccessCidrs.0",
            "endpoint.privateAccessCidrs.1",
            "endpoint.privateAccessCidrs.2",
            "endpoint.privateAccessCidrs.2",
            "endpoint.privateAccessCidrs.3",
        ]);
    });
});
