import { expect } from "chai";
import { namespaceIsolation, restrictedPods } from "eks-platform-policies";
import { expectClean, expectViolations } from "./expect";
import { daemonSet, deployment, namespace, networkPolicy, statefulSet } from "./fixtures";
import { changed, runStack, UNKNOWN, urnOf } from "./harness";

/** `namespace()` with its enforce label set to `value` (`undefined` removes it). The label key holds dots, so no dotted path. */
function withEnforce(value: unknown, name = "prod") {
    const ns = namespace(name);
    const labels = { ...(ns.props.metadata as { labels: Record<string, unknown> }).labels };
    if (value === undefined) {
        delete labels["pod-security.kubernetes.io/enforce"];
    } else {
        labels["pod-security.kubernetes.io/enforce"] = value;
    }
    return changed(ns, "metadata.labels", labels);
}

const allowSameNamespace = networkPolicy("prod", "allow-same-namespace", {
    podSelector: {},
    policyTypes: ["Ingress"],
    ingress: [{ from: [{ podSelector: {} }] }],
});

describe("policy namespace-isolation (stack)", () => {
    it("passes a namespace enforcing restricted with a default-deny ingress policy (and allow rules beside it)", async () => {
        expectClean(await runStack(namespaceIsolation, [namespace(), networkPolicy(), allowSameNamespace]));
    });

    it("reports a namespace without the enforce label, on the namespace's URN", async () => {
        const ns = withEnforce(undefined);
        const outcome = await runStack(namespaceIsolation, [ns, networkPolicy()]);
        expectViolations(outcome, /Namespace prod has no pod-security\.kubernetes\.io\/enforce label.*Why: .*take over its node/);
        expect(outcome.violations[0].urn).to.equal(urnOf(ns));
    });

    it("reports an enforce label that is not a Pod Security level", async () => {
        expectViolations(
            await runStack(namespaceIsolation, [withEnforce("strict"), networkPolicy()]),
            /Namespace prod has pod-security\.kubernetes\.io\/enforce: "strict", which is not a Pod Security level/,
        );
    });

    it("reports a level below minimumEnforceLevel (baseline by default, configurable)", async () => {
        expectViolations(
            await runStack(namespaceIsolation, [withEnforce("privileged"), networkPolicy()]),
            /Namespace prod enforces Pod Security level privileged, below the required baseline/,
        );
        expectClean(await runStack(namespaceIsolation, [withEnforce("baseline"), networkPolicy()]));
        expectViolations(
            await runStack(namespaceIsolation, [withEnforce("baseline"), networkPolicy()], { minimumEnforceLevel: "restricted" }),
            /enforces Pod Security level baseline, below the required restricted/,
        );
        expectClean(
            await runStack(namespaceIsolation, [withEnforce("privileged"), networkPolicy()], { minimumEnforceLevel: "privileged" }),
        );
    });

    it("rejects a minimumEnforceLevel that is not a level", async () => {
        let error: unknown;
        try {
            await runStack(namespaceIsolation, [namespace(), networkPolicy()], { minimumEnforceLevel: "strict" });
        } catch (err) {
            error = err;
        }
        expect(String(error)).to.match(/namespace-isolation\.minimumEnforceLevel: must be one of "privileged", "baseline", "restricted"/);
    });

    it("reports a namespace without any NetworkPolicy and no workload in the input, saying any pod can reach it", async () => {
        expectViolations(
            await runStack(namespaceIsolation, [namespace()]),
            /Namespace prod has no NetworkPolicy restricting ingress to all its pods, and none of its workloads is in this stack\. Why: .*any pod in the cluster.*Fix: .*podSelector: \{\}/,
        );
    });

    it("reports both problems of one namespace", async () => {
        expectViolations(
            await runStack(namespaceIsolation, [withEnforce(undefined)]),
            /no pod-security/,
            /no NetworkPolicy restricting ingress/,
        );
    });

    for (const [what, path, value] of [
        ["selects only some pods (matchLabels)", "spec.podSelector", { matchLabels: { app: "api" } }],
        ["selects only some pods (matchExpressions)", "spec.podSelector", { matchExpressions: [{ key: "app", operator: "Exists" }] }],
        ["has no podSelector (a required field)", "spec.podSelector", undefined],
        ["has a malformed podSelector", "spec.podSelector", { matchLabels: "app=api" }],
        ["is egress-only", "spec.policyTypes", ["Egress"]],
        ["has one empty ingress rule (allows everything)", "spec.ingress", [{}]],
        ["allows every namespace on every port", "spec.ingress", [{ from: [{ namespaceSelector: {} }] }]],
        ["allows every address on every port", "spec.ingress", [{ from: [{ ipBlock: { cidr: "0.0.0.0/0" } }] }]],
        ["is in another namespace", "metadata.namespace", "web"],
        ["has no namespace (it lands in default)", "metadata.namespace", undefined],
    ] as const) {
        it(`does not count a NetworkPolicy that ${what}`, async () => {
            expectViolations(
                await runStack(namespaceIsolation, [namespace(), changed(networkPolicy(), path, value)]),
                /Namespace prod has no NetworkPolicy restricting ingress to all its pods/,
            );
        });
    }

    for (const [what, spec] of [
        ["empty matchLabels and matchExpressions", { podSelector: { matchLabels: {}, matchExpressions: [] }, policyTypes: ["Ingress"] }],
        ["Ingress and Egress", { podSelector: {}, policyTypes: ["Ingress", "Egress"] }],
        ["an empty ingress list", { podSelector: {}, policyTypes: ["Ingress"], ingress: [] }],
        ["no policyTypes (Ingress is implied)", { podSelector: {} }],
        ["no policyTypes and an egress section (the API server defaults to Ingress and Egress)", { podSelector: {}, egress: [{}] }],
        [
            "rules admitting only the namespace's own pods",
            { podSelector: {}, policyTypes: ["Ingress"], ingress: [{ from: [{ podSelector: {} }] }] },
        ],
        ["a rule admitting anyone on one port only", { podSelector: {}, ingress: [{ ports: [{ port: 443 }] }] }],
        [
            "a rule admitting labelled namespaces",
            { podSelector: {}, ingress: [{ from: [{ namespaceSelector: { matchLabels: { team: "edge" } } }] }] },
        ],
    ] as const) {
        it(`counts a NetworkPolicy restricting every pod with ${what}`, async () => {
            expectClean(await runStack(namespaceIsolation, [namespace(), networkPolicy("prod", "deny", spec)]));
        });
    }

    it("recognises which pods a NetworkPolicy restricts, and nothing looser", () => {
        expect(restrictedPods({ podSelector: {}, policyTypes: ["Ingress"] })).to.deep.equal({ matchLabels: {}, matchExpressions: [] });
        expect(restrictedPods({ podSelector: { matchLabels: { app: "api" } } })?.matchLabels).to.deep.equal({ app: "api" });
        expect(restrictedPods({ podSelector: {}, policyTypes: ["Egress"] })).to.equal(undefined);
        expect(restrictedPods({ podSelector: {}, ingress: [{}] })).to.equal(undefined);
        expect(restrictedPods({ podSelector: "all" })).to.equal(undefined);
        expect(restrictedPods(undefined)).to.equal(undefined);
    });

    it("judges each namespace on its own policies", async () => {
        expectViolations(
            await runStack(namespaceIsolation, [namespace("prod"), namespace("web"), networkPolicy("prod")]),
            /Namespace web has no NetworkPolicy restricting ingress to all its pods/,
        );
    });

    it("exempts system namespaces (configurable) and says so when nothing is left", async () => {
        const bare = (name: string) => changed(namespace(name), "metadata.labels", undefined);
        expect((await runStack(namespaceIsolation, [bare("kube-system"), bare("default"), networkPolicy("prod")])).notApplicable).to.match(
            /nothing was checked/,
        );
        expect((await runStack(namespaceIsolation, [networkPolicy()])).notApplicable).to.match(/no Namespace outside the exempt ones/);
        expectViolations(
            await runStack(namespaceIsolation, [bare("default")], { exemptNamespaces: [] }),
            /Namespace default has no pod-security/,
            /Namespace default has no NetworkPolicy restricting ingress/,
        );
    });

    it("leaves an unknown enforce label undecided, still judging the rest", async () => {
        const outcome = await runStack(namespaceIsolation, [withEnforce(UNKNOWN.string), namespace("web")]);
        expect(outcome.violations.map((v) => v.message)).to.have.length(2);
        expect(outcome.violations[0].message).to.match(/Namespace prod has no NetworkPolicy restricting ingress/);
        expect(outcome.violations[1].message).to.match(/Namespace web has no NetworkPolicy restricting ingress/);
        expect(outcome.cantRun).to.match(
            /can't run policy 'namespace-isolation'.*pod-security\.kubernetes\.io\/enforce can't be known during preview.*Namespace prod pod security/,
        );
    });

    it("leaves a namespace without a readable default-deny undecided when one of its NetworkPolicies is unknown", async () => {
        const outcome = await runStack(namespaceIsolation, [namespace(), changed(networkPolicy(), "spec.podSelector", UNKNOWN.object)]);
        expect(outcome.violations).to.deep.equal([]);
        expect(outcome.cantRun).to.match(
            /spec\.podSelector can't be known during preview.*NetworkPolicy prod-default-deny.*Namespace prod network/,
        );
    });

    it("decides when another, readable policy already denies ingress", async () => {
        const unknownAllow = changed(allowSameNamespace, "spec.ingress", UNKNOWN.array);
        const outcome = await runStack(namespaceIsolation, [namespace(), networkPolicy(), unknownAllow]);
        expect(outcome.violations).to.deep.equal([]);
        // The unreadable policy itself is still reported as undecided, never silently dropped.
        expect(outcome.cantRun).to.match(/NetworkPolicy prod-allow-same-namespace/);
        expect(outcome.cantRun).to.not.match(/Namespace prod network/);
    });

    it("leaves every namespace undecided when a NetworkPolicy's namespace is unknown", async () => {
        const outcome = await runStack(namespaceIsolation, [namespace(), changed(networkPolicy(), "metadata.namespace", UNKNOWN.string)]);
        expect(outcome.violations).to.deep.equal([]);
        expect(outcome.cantRun).to.match(/Namespace prod network/);
    });

    it("is linear in the number of objects (2,500 and 10,000), with exact verdicts", async () => {
        // Restricts only the web pods: no isolation of the namespace by itself.
        const allow = {
            podSelector: { matchLabels: { app: "web" } },
            policyTypes: ["Ingress"],
            ingress: [{ from: [{ podSelector: {} }] }],
        };
        const stack = (n: number) => {
            const resources = [];
            for (let i = 0; i < n / 4; i++) {
                const ns = `ns${i}`;
                resources.push(namespace(ns), networkPolicy(ns, "allow", allow));
                // Every 100th namespace: no default-deny, and a bare namespace beside it.
                resources.push(
                    ...(i % 100 === 0
                        ? [withEnforce(undefined, `bare${i}`), networkPolicy(ns, "extra", allow)]
                        : [networkPolicy(ns), networkPolicy(ns, "extra", allow)]),
                );
            }
            return resources;
        };
        // Work, not time: every read of the resources' properties is counted.
        const reads: number[] = [];
        for (const n of [2500, 10_000]) {
            const resources = stack(n);
            const counter = { count: 0 };
            const outcome = await runStack(namespaceIsolation, resources, {}, undefined, counter);
            reads.push(counter.count);
            expect(outcome.violations, String(n)).to.have.length(Math.ceil(n / 4 / 100) * 3);
        }
        expect(reads[0], "the reads are counted").to.be.greaterThan(2500);
        expect(reads[1] / reads[0], reads.join(" reads, ")).to.be.lessThan(6);
    });
});

describe("policy namespace-isolation: what is actually isolated", () => {
    // kube-prometheus's shape: no default deny, one NetworkPolicy per component selecting its pods.
    const component = (ns: string, app: string) =>
        networkPolicy(ns, app, {
            podSelector: { matchLabels: { app } },
            policyTypes: ["Egress", "Ingress"],
            egress: [{}],
            ingress: [{ from: [{ podSelector: { matchLabels: { app: "prometheus" } } }], ports: [{ port: 9090, protocol: "TCP" }] }],
        });
    const monitoring = () => withEnforce("baseline", "monitoring");

    it("passes per-component NetworkPolicies that between them select every workload's pods", async () => {
        expectClean(
            await runStack(namespaceIsolation, [
                monitoring(),
                deployment("grafana", "monitoring"),
                statefulSet("prometheus", "monitoring"),
                component("monitoring", "grafana"),
                component("monitoring", "prometheus"),
            ]),
        );
    });

    it("names the workloads whose pods no NetworkPolicy restricts, on the namespace's URN", async () => {
        const ns = monitoring();
        const outcome = await runStack(namespaceIsolation, [
            ns,
            deployment("grafana", "monitoring"),
            statefulSet("prometheus", "monitoring"),
            daemonSet("node-exporter", "monitoring"),
            component("monitoring", "grafana"),
        ]);
        expectViolations(
            outcome,
            /Namespace monitoring: the pods of StatefulSet monitoring\/prometheus \(app=prometheus,tier=web\), DaemonSet monitoring\/node-exporter \(app=node-exporter,tier=web\) are selected by no NetworkPolicy restricting ingress\. Why: any pod in the cluster.*Fix: add a NetworkPolicy in monitoring with spec\.podSelector: \{\}.*or a NetworkPolicy selecting those pods' labels/,
        );
        expect(outcome.violations[0].urn).to.equal(urnOf(ns));
    });

    it("does not count a component policy whose rule admits everyone", async () => {
        const open = changed(component("monitoring", "grafana"), "spec.ingress", [{}]);
        expectViolations(
            await runStack(namespaceIsolation, [monitoring(), deployment("grafana", "monitoring"), open]),
            /the pods of Deployment monitoring\/grafana .* are selected by no NetworkPolicy restricting ingress/,
        );
    });

    it("allows a per-namespace Pod Security level without dropping the NetworkPolicy check", async () => {
        const privileged = withEnforce("privileged", "monitoring");
        expectViolations(
            await runStack(namespaceIsolation, [privileged, networkPolicy("monitoring")]),
            /Namespace monitoring enforces Pod Security level privileged, below the required baseline.*Fix: .*namespaceEnforceLevels, e\.g\. \{"monitoring": "privileged"\}/,
        );
        const config = { namespaceEnforceLevels: { monitoring: "privileged" } };
        expectClean(await runStack(namespaceIsolation, [privileged, networkPolicy("monitoring")], config));
        expectViolations(
            await runStack(namespaceIsolation, [privileged], config),
            /Namespace monitoring has no NetworkPolicy restricting ingress/,
        );
        // Other namespaces keep the stack-wide minimum.
        expectViolations(
            await runStack(namespaceIsolation, [withEnforce("privileged", "prod"), networkPolicy("prod")], config),
            /Namespace prod enforces Pod Security level privileged, below the required baseline/,
        );
    });

    it("rejects a per-namespace level that is not a Pod Security level", async () => {
        let error: unknown;
        try {
            await runStack(namespaceIsolation, [namespace()], { namespaceEnforceLevels: { monitoring: "open" } });
        } catch (err) {
            error = err;
        }
        expect(String(error)).to.match(
            /namespace-isolation\.namespaceEnforceLevels\.monitoring: must be one of "privileged", "baseline", "restricted", not "open"/,
        );
    });
});
