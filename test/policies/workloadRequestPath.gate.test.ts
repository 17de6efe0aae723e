/**
 * workload-request-path through the gate as an application repository runs it (`policy:check
 * --env prod`): the four ways issue #24 names of dropping requests at a load balancer, each failing
 * prod with the load balancer, the workload and the numbers; then the same workloads as the messages
 * say to configure them, passing.
 */
import { expect } from "chai";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import * as YAML from "yaml";
import { runTool } from "../mocks";
import { nodePool } from "./fixtures";
import { changed } from "./harness";

interface Finding {
    policy: string;
    message: string;
    level: string;
}

type Obj = Record<string, unknown>;

const GATE = { "elbv2.k8s.aws/pod-readiness-gate-inject": "enabled" };

function ns(name: string, gated: boolean): Obj {
    return { apiVersion: "v1", kind: "Namespace", metadata: { name, labels: gated ? GATE : {} } };
}

/** A Deployment `name` in `namespace` serving port 8080 as `http`, with a PDB and a Service. */
function app(name: string, namespace: string, o: { preStop: number; grace: number; pod?: Obj; service?: Obj }): Obj[] {
    const labels = { app: name };
    return [
        {
            apiVersion: "apps/v1",
            kind: "Deployment",
            metadata: { name, namespace },
            spec: {
                replicas: 3,
                selector: { matchLabels: labels },
                template: {
                    metadata: { labels },
                    spec: {
                        terminationGracePeriodSeconds: o.grace,
                        ...o.pod,
                        containers: [
                            {
                                name: "app",
                                image: "registry.example.com/app:1.0.0",
                                ports: [{ name: "http", containerPort: 8080 }],
                                resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { cpu: "500m", memory: "256Mi" } },
                                lifecycle: { preStop: { sleep: { seconds: o.preStop } } },
                            },
                        ],
                    },
                },
            },
        },
        {
            apiVersion: "policy/v1",
            kind: "PodDisruptionBudget",
            metadata: { name, namespace },
            spec: { maxUnavailable: 1, selector: { matchLabels: labels } },
        },
        {
            apiVersion: "v1",
            kind: "Service",
            metadata: { name, namespace, ...(o.service?.metadata as Obj) },
            spec: { selector: labels, ports: [{ name: "http", port: 80, targetPort: "http" }], ...(o.service?.spec as Obj) },
        },
    ];
}

function ingress(name: string, namespace: string, annotations: Record<string, string>): Obj {
    return {
        apiVersion: "networking.k8s.io/v1",
        kind: "Ingress",
        metadata: { name, namespace, annotations: { "alb.ingress.kubernetes.io/target-type": "ip", ...annotations } },
        spec: {
            ingressClassName: "alb",
            rules: [{ http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name, port: { name: "http" } } } }] } }],
        },
    };
}

const DELAY_30 = { "alb.ingress.kubernetes.io/target-group-attributes": "deregistration_delay.timeout_seconds=30" };
// The fixtures' NodePool, launching Spot only: a 2-minute window for every pod that may land on it.
const spotPool: Obj = changed(nodePool("spot"), "spec.template.spec.requirements", [
    { key: "karpenter.sh/capacity-type", operator: "In", values: ["spot"] },
]).props;
const nlb = (ip: boolean): Obj => ({
    metadata: {
        annotations: {
            ...(ip ? { "service.beta.kubernetes.io/aws-load-balancer-nlb-target-type": "ip" } : {}),
            "service.beta.kubernetes.io/aws-load-balancer-target-group-attributes": "deregistration_delay.timeout_seconds=30",
        },
    },
    spec: { type: "LoadBalancer" },
});

/** The four unsafe workloads, or (`fixed`) the same as their messages say to configure them. */
function manifests(fixed: boolean): Obj[] {
    return [
        ns("shop", true),
        ns("legacy", fixed),
        spotPool,
        // 1. An ALB ip target with the common 5 s preStop.
        ...app("cart", "shop", { preStop: fixed ? 15 : 5, grace: 60 }),
        ingress("cart", "shop", DELAY_30),
        // 2. ELB's default 300 s deregistration delay behind a 45 s grace period.
        ...app("search", "shop", { preStop: 15, grace: 45 }),
        ingress(
            "search",
            "shop",
            fixed ? { "alb.ingress.kubernetes.io/target-group-attributes": "deregistration_delay.timeout_seconds=45" } : {},
        ),
        // 3. An NLB ip target that may run on Spot.
        ...app("stream", "shop", {
            preStop: 125,
            grace: 150,
            service: nlb(true),
            pod: fixed ? { nodeSelector: { "karpenter.sh/capacity-type": "on-demand" } } : {},
        }),
        // 4. An ALB ip target in a namespace without readiness gates.
        ...app("billing", "legacy", { preStop: 15, grace: 60 }),
        ingress("billing", "legacy", DELAY_30),
    ];
}

async function gate(objects: Obj[]): Promise<{ code: number; findings: Finding[] }> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "request-path-"));
    fs.writeFileSync(path.join(dir, "app.yaml"), objects.map((o) => YAML.stringify(o)).join("---\n"));
    const r = await runTool("policyCheck.ts", ["--env", "prod", "--format", "json", dir]);
    fs.rmSync(dir, { recursive: true, force: true });
    const out = JSON.parse(r.stdout) as { violations: Finding[] };
    return { code: r.code, findings: out.violations };
}

describe("workload-request-path in the gate (policy:check --env prod)", function () {
    this.timeout(240_000);
    let unsafe: { code: number; findings: Finding[] };
    let fixed: { code: number; findings: Finding[] };
    before(async () => {
        [unsafe, fixed] = await Promise.all([gate(manifests(false)), gate(manifests(true))]);
    });

    it("fails prod on each of the four, naming the load balancer, the workload and the numbers", () => {
        expect(unsafe.code).to.equal(1);
        const mine = unsafe.findings.filter((f) => f.policy === "workload-request-path");
        expect(mine.every((f) => f.level === "mandatory")).to.equal(true);
        const messages = mine.map((f) => f.message);
        expect(messages, messages.join("\n")).to.have.length(4);
        const one = (pattern: RegExp) =>
            expect(
                messages.filter((m) => pattern.test(m)),
                pattern.source,
            ).to.have.length(1);
        one(
            /Deployment shop\/cart container "app" gets SIGTERM 5 s after .* the ALB of Ingress cart \(Service cart\) keeps sending it new requests for 15 s/,
        );
        one(
            /Deployment shop\/search has a termination grace period of 45 s, shorter than the 300 s deregistration delay of the ALB of Ingress search/,
        );
        one(
            /Deployment shop\/stream is sent requests by the NLB of Service stream, which keeps routing to a deleted pod for 120 s, but its pods may run on nodes of NodePool spot \(Spot\) with a 2m drain window/,
        );
        one(
            /Deployment legacy\/billing is an ip target of the ALB of Ingress billing \(Service billing\), but namespace legacy does not carry the label/,
        );
    });

    it("passes the same workloads configured as the messages say", () => {
        const mine = fixed.findings.filter((f) => f.policy === "workload-request-path").map((f) => f.message);
        expect(mine).to.deep.equal([]);
        // A grace period of 150 s is the NLB's need, not a violation of a fixed maximum.
        expect(fixed.findings.filter((f) => f.policy === "workload-termination-grace").map((f) => f.message)).to.deep.equal([]);
    });
});
