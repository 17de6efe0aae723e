import { expect } from "chai";
import * as YAML from "yaml";
import {
    bootstrapCommand,
    clusterDnsIp,
    NodeBootstrap,
    renderBootstrapUserData,
    renderNodeadmUserData,
    renderUserData,
} from "../../../components/nodegroups/userData";

const CA = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1PQ0sKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=";
const ENDPOINT = "https://ABCDEF0123456789.gr7.us-east-1.eks.amazonaws.com";

const batch: NodeBootstrap = {
    clusterName: "platform-prod",
    endpoint: ENDPOINT,
    certificateAuthority: CA,
    serviceCidr: "172.20.0.0/16",
    labels: { workload: "batch", "team.example.com/owner": "data" },
    taints: [
        { key: "workload", value: "batch", effect: "NoSchedule" },
        { key: "dedicated", value: "", effect: "NoExecute" },
    ],
    maxPods: 58,
    kubeletFlags: ["--image-gc-high-threshold=85"],
};

interface MimePart {
    headers: Record<string, string>;
    body: string;
}

/** A small RFC 2046 multipart reader, written here so the test does not trust the renderer. */
function parseMultipart(text: string): { headers: Record<string, string>; parts: MimePart[]; closed: boolean } {
    const [head, ...rest] = text.split("\n\n");
    const headers = parseHeaders(head);
    const boundary = /boundary="([^"]+)"/.exec(headers["content-type"] ?? "")?.[1];
    expect(boundary, "multipart boundary").to.be.a("string");
    const body = rest.join("\n\n");
    const chunks = body.split(`--${boundary as string}`);
    const closed = chunks[chunks.length - 1].startsWith("--");
    const parts = chunks
        .slice(1, -1)
        .map((chunk) => chunk.replace(/^\n/, ""))
        .map((chunk) => {
            const split = chunk.indexOf("\n\n");
            return { headers: parseHeaders(chunk.slice(0, split)), body: chunk.slice(split + 2) };
        });
    return { headers, parts, closed };
}

function parseHeaders(block: string): Record<string, string> {
    return Object.fromEntries(
        block
            .split("\n")
            .filter((l) => l.includes(":"))
            .map((l) => [l.slice(0, l.indexOf(":")).trim().toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]),
    );
}

describe("user data: AL2023 (nodeadm)", () => {
    const text = renderNodeadmUserData(batch);
    const mime = parseMultipart(text);

    it("is MIME multipart with exactly one closed application/node.eks.aws part", () => {
        expect(mime.headers["mime-version"]).to.equal("1.0");
        expect(mime.headers["content-type"]).to.match(/^multipart\/mixed; boundary="[^"]+"$/);
        expect(mime.parts).to.have.length(1);
        expect(mime.parts[0].headers["content-type"]).to.equal("application/node.eks.aws");
        expect(mime.closed).to.equal(true);
    });

    it("holds a NodeConfig naming the cluster, its endpoint, CA and Service CIDR", () => {
        const config = YAML.parse(mime.parts[0].body);
        expect(config.apiVersion).to.equal("node.eks.aws/v1alpha1");
        expect(config.kind).to.equal("NodeConfig");
        expect(config.spec.cluster).to.deep.equal({
            name: "platform-prod",
            apiServerEndpoint: ENDPOINT,
            certificateAuthority: CA,
            cidr: "172.20.0.0/16",
        });
    });

    it("registers the kubelet with max pods, sorted labels, taints and the extra flags", () => {
        const config = YAML.parse(mime.parts[0].body);
        expect(config.spec.kubelet).to.deep.equal({
            config: { maxPods: 58 },
            flags: [
                "--node-labels=team.example.com/owner=data,workload=batch",
                "--register-with-taints=workload=batch:NoSchedule,dedicated:NoExecute",
                "--image-gc-high-threshold=85",
            ],
        });
    });

    it("leaves the kubelet section out when nothing is customised", () => {
        const plain = parseMultipart(
            renderNodeadmUserData({ clusterName: "c", endpoint: ENDPOINT, certificateAuthority: CA, serviceCidr: "10.100.0.0/16" }),
        );
        const config = YAML.parse(plain.parts[0].body);
        expect(config.spec).to.have.keys(["cluster"]);
        expect(config.spec.cluster.cidr).to.equal("10.100.0.0/16");
    });

    it("renders the same bytes every time (no launch template churn)", () => {
        expect(renderNodeadmUserData(batch)).to.equal(text);
        expect(renderUserData("AL2023", batch)).to.equal(text);
    });
});

describe("user data: AL2 (bootstrap.sh)", () => {
    it("calls bootstrap.sh with endpoint, CA, DNS IP, max pods and the kubelet flags in one quoted argument", () => {
        expect(bootstrapCommand(batch)).to.equal(
            "/etc/eks/bootstrap.sh 'platform-prod'" +
                ` --apiserver-endpoint '${ENDPOINT}'` +
                ` --b64-cluster-ca '${CA}'` +
                " --dns-cluster-ip 172.20.0.10" +
                " --use-max-pods false" +
                " --kubelet-extra-args '--node-labels=team.example.com/owner=data,workload=batch" +
                " --register-with-taints=workload=batch:NoSchedule,dedicated:NoExecute" +
                " --image-gc-high-threshold=85 --max-pods=58'",
        );
    });

    it("is a shell script that stops on the first failure and has exactly one bootstrap line", () => {
        const script = renderBootstrapUserData(batch);
        const lines = script.trimEnd().split("\n");
        expect(lines[0]).to.equal("#!/bin/bash");
        expect(lines[1]).to.equal("set -o errexit -o nounset -o pipefail");
        expect(lines.filter((l) => l.includes("/etc/eks/bootstrap.sh"))).to.have.length(1);
        expect(script).to.not.include("nodeadm");
        expect(renderUserData("AL2", batch)).to.equal(script);
    });

    it("omits --use-max-pods and --kubelet-extra-args when there is nothing to pass", () => {
        const line = bootstrapCommand({ clusterName: "c", endpoint: ENDPOINT, certificateAuthority: CA, serviceCidr: "10.100.0.0/16" });
        expect(line).to.equal(
            `/etc/eks/bootstrap.sh 'c' --apiserver-endpoint '${ENDPOINT}' --b64-cluster-ca '${CA}' --dns-cluster-ip 10.100.0.10`,
        );
    });

    it("derives the cluster DNS IP from the Service CIDR", () => {
        expect(clusterDnsIp("172.20.0.0/16")).to.equal("172.20.0.10");
        expect(clusterDnsIp("10.100.0.0/16")).to.equal("10.100.0.10");
        expect(() => clusterDnsIp("not-a-cidr")).to.throw(/not an IPv4 CIDR/);
    });
});
