import { expect } from "chai";
import { pdbAllowsDisruption } from "eks-platform-policies";
import { expectClean, expectUndecided, expectViolations } from "./expect";
import { alertmanager, alertmanagerPdb, daemonSet, deployment, hpa, pdb, scaledObject, withoutReplicas } from "./fixtures";
import { MANIFEST_TAGS, runStack, UNKNOWN, urnOf } from "./harness";

const select = { matchLabels: { app: "api" } };

describe("policy pdb-allows-disruption (stack)", () => {
    it("passes budgets that leave at least one pod evictable", async () => {
        for (const spec of [{ maxUnavailable: 1 }, { maxUnavailable: "10%" }, { minAvailable: 2 }, { minAvailable: "50%" }]) {
            expectClean(await runStack(pdbAllowsDisruption, [deployment(), pdb("api", "prod", { ...spec, selector: select })]));
        }
    });

    it("reports maxUnavailable 0 and 0%", async () => {
        for (const value of [0, "0%"]) {
            const p = pdb("api", "prod", { maxUnavailable: value, selector: select });
            const outcome = await runStack(pdbAllowsDisruption, [deployment(), p]);
            expectViolations(
                outcome,
                /PodDisruptionBudget prod\/api sets maxUnavailable: (0|"0%"), so no pod may ever be evicted.*drains .* block/,
            );
            expect(outcome.violations[0].urn).to.equal(urnOf(p));
        }
    });

    it('reports minAvailable "100%"', async () => {
        expectViolations(
            await runStack(pdbAllowsDisruption, [deployment(), pdb("api", "prod", { minAvailable: "100%", selector: select })]),
            /minAvailable: "100%"/,
        );
    });

    it("reports an integer minAvailable at or above the replicas, and percentages that round up to all pods", async () => {
        expectViolations(
            await runStack(pdbAllowsDisruption, [deployment(), pdb("api", "prod", { minAvailable: 3, selector: select })]),
            /requires minAvailable 3 \(3 pods\) of the 3 replicas of Deployment prod\/api.*with minAvailable 3 and 3 replicas node drains/,
        );
        expectViolations(
            await runStack(pdbAllowsDisruption, [deployment(), pdb("api", "prod", { minAvailable: 5, selector: select })]),
            /minAvailable 5/,
        );
        expectViolations(
            await runStack(pdbAllowsDisruption, [deployment(), pdb("api", "prod", { minAvailable: "90%", selector: select })]),
            /minAvailable "90%" \(3 pods\) of the 3 replicas/,
        );
    });

    it("skips replica arithmetic for DaemonSets, whose size depends on the cluster", async () => {
        expectClean(
            await runStack(pdbAllowsDisruption, [
                daemonSet(),
                pdb("agent", "prod", { minAvailable: 3, selector: { matchLabels: { app: "agent" } } }),
            ]),
        );
    });

    it("reports a workload matched by two budgets", async () => {
        const d = deployment();
        const outcome = await runStack(pdbAllowsDisruption, [
            d,
            pdb(),
            pdb("api-web", "prod", { maxUnavailable: 1, selector: { matchLabels: { tier: "web" } } }),
        ]);
        expectViolations(outcome, /Deployment prod\/api is matched by 2 PodDisruptionBudgets \(api, api-web\).*eviction API refuses/);
        expect(outcome.violations[0].urn).to.equal(urnOf(d));
    });

    it("reports values the API server rejects", async () => {
        expectViolations(
            await runStack(pdbAllowsDisruption, [deployment(), pdb("api", "prod", { maxUnavailable: "one", selector: select })]),
            /maxUnavailable to "one", which is neither/,
        );
    });

    it("reports every kind of value the API server rejects, and nothing else about such a budget", async () => {
        for (const [spec, pattern] of [
            [{ maxUnavailable: -1 }, /sets maxUnavailable to -1, which is negative/],
            [{ minAvailable: 1.5 }, /sets minAvailable to 1\.5, which is not a whole number/],
            [{ minAvailable: "150%" }, /sets minAvailable to "150%", a percentage above 100%/],
            [{ maxUnavailable: "101%" }, /sets maxUnavailable to "101%", a percentage above 100%/],
            [{ maxUnavailable: "2" }, /sets maxUnavailable to "2", a number written as a string/],
            [{ minAvailable: " 25%" }, /sets minAvailable to " 25%", which is neither/],
            [{ minAvailable: "-5%" }, /sets minAvailable to "-5%", which is neither/],
            [{ maxUnavailable: true }, /sets maxUnavailable to true, which is neither/],
            [{ minAvailable: 1, maxUnavailable: 1 }, /sets both minAvailable and maxUnavailable/],
            // k8s.io/api policy/v1: IfHealthyBudget and AlwaysAllow are the only values (ValidatePodDisruptionBudgetSpec).
            [
                { maxUnavailable: 1, unhealthyPodEvictionPolicy: "Always" },
                /sets unhealthyPodEvictionPolicy to "Always", not one of IfHealthyBudget or AlwaysAllow/,
            ],
        ] as const) {
            const p = pdb("api", "prod", { ...spec, selector: select });
            const outcome = await runStack(pdbAllowsDisruption, [deployment(), p]);
            expectViolations(outcome, new RegExp(`PodDisruptionBudget prod/api ${pattern.source}.*Why: the API server rejects the budget`));
            expect(outcome.violations[0].urn).to.equal(urnOf(p));
        }
        expectClean(await runStack(pdbAllowsDisruption, [deployment(), pdb("api", "prod", { maxUnavailable: "100%", selector: select })]));
        for (const policy of ["AlwaysAllow", "IfHealthyBudget"]) {
            const p = pdb("api", "prod", { maxUnavailable: 1, unhealthyPodEvictionPolicy: policy, selector: select });
            expectClean(await runStack(pdbAllowsDisruption, [deployment(), p]));
        }
    });

    it("reports a malformed selector as rejected, not as matching everything or nothing", async () => {
        for (const [selector, pattern] of [
            [{ matchLabels: "app=api" }, /matchLabels is the string "app=api", not a map of labels/],
            [{ matchExpressions: { key: "app", operator: "In", values: ["api"] } }, /matchExpressions is a map, not a list/],
            [{ matchExpressions: [{ key: "app", operator: "Near", values: ["api"] }] }, /operator is the string "Near"/],
            [{ matchExpressions: [{ key: "app", operator: "In", values: "api" }] }, /values is the string "api", not a list of strings/],
            [{ matchExpressions: [{ key: "app", operator: "In", values: [] }] }, /operator In on "app" needs at least one value/],
            [{ matchLabels: { app: 1 } }, /matchLabels\.app is number 1, not a string/],
        ] as const) {
            const outcome = await runStack(pdbAllowsDisruption, [deployment(), pdb("api", "prod", { maxUnavailable: 1, selector })]);
            expectViolations(
                outcome,
                new RegExp(
                    `PodDisruptionBudget prod/api has a malformed selector: .*${pattern.source}.*Why: the API server rejects the budget`,
                ),
            );
        }
    });

    it("does not count a rejected budget as a second budget of its workload", async () => {
        expectViolations(
            await runStack(pdbAllowsDisruption, [
                deployment(),
                pdb(),
                pdb("api-everything", "prod", { maxUnavailable: 1, selector: { matchLabels: "app=api" } }),
            ]),
            /prod\/api-everything has a malformed selector/,
        );
    });

    it("reports a budget with neither minAvailable nor maxUnavailable: it blocks every eviction", async () => {
        const p = pdb("api", "prod", { selector: select });
        const outcome = await runStack(pdbAllowsDisruption, [deployment(), p]);
        expectViolations(
            outcome,
            /PodDisruptionBudget prod\/api sets neither minAvailable nor maxUnavailable, so no pod may ever be evicted\. Why: .*disruption controller.*disruptionsAllowed at 0.*drains .* block/,
        );
        expect(outcome.violations[0].urn).to.equal(urnOf(p));
        // Even with no workload to match: the budget itself is the defect.
        const alone = await runStack(pdbAllowsDisruption, [pdb("api", "staging", { selector: select })]);
        expect(alone.violations.map((v) => v.message)).to.have.length(1);
        expect(alone.violations[0].message).to.match(/staging\/api sets neither/);
        // Whether it matches the pods it was meant for cannot be told without them.
        expect(alone.undecided.map((v) => v.message)).to.have.length(1);
        expect(alone.undecided[0].message).to.match(/^Undecided: PodDisruptionBudget staging\/api matches no workload/);
    });

    it("words a single replica as one, and never suggests a minAvailable of 0 or less", async () => {
        const outcome = await runStack(pdbAllowsDisruption, [
            deployment("api", "prod", 1),
            pdb("api", "prod", { minAvailable: 1, selector: select }),
        ]);
        expectViolations(outcome, /requires minAvailable 1 \(1 pod\) of the 1 replica of Deployment prod\/api/);
        expect(outcome.violations[0].message).to.not.match(/1 replicas|1 pods|0 or less/);
        expect(outcome.violations[0].message).to.match(/Fix: use maxUnavailable: 1, or add replicas/);
    });

    it("judges an autoscaled workload at the low end of its autoscaler's range", async () => {
        const unscaled = withoutReplicas(deployment());
        // minReplicas 5: minAvailable 2 leaves three pods evictable, though the Deployment sets no replicas.
        expectClean(
            await runStack(pdbAllowsDisruption, [unscaled, hpa("api", 5, 10), pdb("api", "prod", { minAvailable: 2, selector: select })]),
        );
        expectViolations(
            await runStack(pdbAllowsDisruption, [unscaled, hpa("api", 2, 10), pdb("api", "prod", { minAvailable: 2, selector: select })]),
            /requires minAvailable 2 \(2 pods\) of the 2 replicas of Deployment prod\/api \(2 to 10, scaled by HorizontalPodAutoscaler prod\/api\)/,
        );
        // A KEDA ScaledObject that may scale to zero still runs a single pod at times: minAvailable 1 blocks it.
        expectViolations(
            await runStack(pdbAllowsDisruption, [
                unscaled,
                scaledObject("api", 0, 10),
                pdb("api", "prod", { minAvailable: 1, selector: select }),
            ]),
            /requires minAvailable 1 \(1 pod\) of the 1 replica of Deployment prod\/api \(0 to 10, scaled by ScaledObject prod\/api\)/,
        );
        // The autoscaler's range replaces spec.replicas: an HPA never lets it drop below minReplicas.
        expectClean(
            await runStack(pdbAllowsDisruption, [
                deployment("api", "prod", 1),
                hpa("api", 3, 6),
                pdb("api", "prod", { minAvailable: 2, selector: select }),
            ]),
        );
    });

    it("says so instead of passing when the stack has no PDB", async () => {
        expect((await runStack(pdbAllowsDisruption, [deployment()])).notApplicable).to.match(/no PodDisruptionBudget in this stack/);
    });

    it("decides the known budgets when one budget's values are unknown", async () => {
        const outcome = await runStack(pdbAllowsDisruption, [
            deployment(),
            pdb("api", "prod", { maxUnavailable: 0, selector: select }),
            deployment("web"),
            pdb("web", "prod", { maxUnavailable: UNKNOWN.number, selector: { matchLabels: { app: "web" } } }),
        ]);
        expect(outcome.violations.map((v) => v.message)).to.have.length(1);
        expect(outcome.violations[0].message).to.match(/prod\/api sets maxUnavailable: 0/);
        expect(outcome.cantRun).to.match(/undecided until the values are known: PodDisruptionBudget prod-web-pdb/);
    });
});

describe("policy pdb-allows-disruption: budgets that match nothing, and operators' pods", () => {
    it("reports a budget whose namespace holds workloads none of which it matches (a selector typo), never suggesting to delete it", async () => {
        const outcome = await runStack(pdbAllowsDisruption, [
            deployment(),
            pdb("api", "prod", { maxUnavailable: 1, selector: { matchLabels: { app: "apj" } } }),
        ]);
        expectViolations(
            outcome,
            /PodDisruptionBudget prod\/api matches none of the workloads of namespace prod in this stack \(selector app=apj; there: Deployment prod\/api \(app=api,tier=web\)\).*Fix: fix the selector/,
        );
        expect(outcome.violations[0].message).to.not.match(/delete/i);
    });

    it("leaves a budget alone in its namespace undecided, not a violation", async () => {
        const outcome = await runStack(pdbAllowsDisruption, [deployment(), pdb("api", "staging")]);
        expectUndecided(
            outcome,
            /^Undecided: PodDisruptionBudget staging\/api matches no workload in this stack \(selector app=api\): namespace staging holds no workload here\. Why: .*come from elsewhere.*To decide it: .*kubectl get pods -n staging -l 'app=api'/,
        );
        expect(outcome.undecided[0].message).to.not.match(/delete the budget/);
    });

    it("judges kube-prometheus's Alertmanager budget against the Alertmanager custom resource's replicas, like a StatefulSet's", async () => {
        expectClean(await runStack(pdbAllowsDisruption, [alertmanager(), alertmanagerPdb()]));
        expectViolations(
            await runStack(pdbAllowsDisruption, [alertmanager(), alertmanagerPdb("main", "monitoring", { minAvailable: 3 })]),
            /PodDisruptionBudget monitoring\/alertmanager-main requires minAvailable 3 \(3 pods\) of the 3 replicas of Alertmanager monitoring\/main/,
        );
        // The operator's default: one replica when spec.replicas is unset.
        expectViolations(
            await runStack(pdbAllowsDisruption, [
                alertmanager("main", "monitoring", null),
                alertmanagerPdb("main", "monitoring", { minAvailable: 1 }),
            ]),
            /of the 1 replica of Alertmanager monitoring\/main/,
        );
    });

    it("leaves the Alertmanager budget alone undecided, and undecided too beside any custom resource it does not match", async () => {
        expectUndecided(
            await runStack(pdbAllowsDisruption, [alertmanagerPdb()], {}, MANIFEST_TAGS),
            /^Undecided: PodDisruptionBudget monitoring\/alertmanager-main matches no workload in these manifests .*namespace monitoring holds no workload here/,
        );
        const other = alertmanager("other");
        expectUndecided(
            await runStack(pdbAllowsDisruption, [deployment("grafana", "monitoring"), other, alertmanagerPdb()]),
            /^Undecided: PodDisruptionBudget monitoring\/alertmanager-main matches no workload in this stack .*holds custom resources \(Alertmanager other\) from which an operator may create its pods.*To decide it: .*customWorkloads/,
        );
        const unknownKind = {
            type: "kubernetes:example.com/v1:Widget",
            name: "monitoring/w",
            props: { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w", namespace: "monitoring" }, spec: {} },
        };
        expectUndecided(
            await runStack(pdbAllowsDisruption, [deployment("grafana", "monitoring"), unknownKind, alertmanagerPdb()]),
            /holds custom resources \(Widget w\)/,
        );
    });

    it("reads the other operators' kinds: Prometheus shards, CloudNativePG instances, Strimzi node pools, ECK node sets", async () => {
        const cr = (apiVersion: string, kind: string, metadata: Record<string, unknown>, spec: Record<string, unknown>) => ({
            type: `kubernetes:${apiVersion}:${kind}`,
            name: `data/${String(metadata.name)}`,
            props: { apiVersion, kind, metadata: { namespace: "data", ...metadata }, spec },
        });
        const cases: [ReturnType<typeof cr>, Record<string, string>, number][] = [
            [cr("monitoring.coreos.com/v1", "Prometheus", { name: "k8s" }, { replicas: 2, shards: 2 }), { prometheus: "k8s" }, 4],
            [
                cr("postgresql.cnpg.io/v1", "Cluster", { name: "pg" }, { instances: 3 }),
                { "cnpg.io/cluster": "pg", "cnpg.io/podRole": "instance" },
                3,
            ],
            [
                cr(
                    "kafka.strimzi.io/v1beta2",
                    "KafkaNodePool",
                    { name: "brokers", labels: { "strimzi.io/cluster": "events" } },
                    { replicas: 3 },
                ),
                { "strimzi.io/cluster": "events", "strimzi.io/pool-name": "brokers" },
                3,
            ],
            [
                cr(
                    "elasticsearch.k8s.elastic.co/v1",
                    "Elasticsearch",
                    { name: "logs" },
                    {
                        nodeSets: [
                            { name: "a", count: 3 },
                            { name: "b", count: 2 },
                        ],
                    },
                ),
                { "elasticsearch.k8s.elastic.co/cluster-name": "logs" },
                5,
            ],
        ];
        for (const [resource, labels, pods] of cases) {
            const budget = (spec: Record<string, unknown>) => pdb("budget", "data", { ...spec, selector: { matchLabels: labels } });
            expectClean(await runStack(pdbAllowsDisruption, [resource, budget({ maxUnavailable: 1 })]));
            expectViolations(
                await runStack(pdbAllowsDisruption, [resource, budget({ minAvailable: pods })]),
                new RegExp(`requires minAvailable ${pods} \\(${pods} pods\\) of the ${pods} replicas of ${resource.props.kind} data/`),
            );
        }
    });

    it("reads a kind described in customWorkloads, which may also replace a built-in one", async () => {
        const widget = {
            type: "kubernetes:example.com/v1:Widget",
            name: "apps/w",
            props: { apiVersion: "example.com/v1", kind: "Widget", metadata: { name: "w", namespace: "apps" }, spec: { size: 4 } },
        };
        const budget = pdb("w", "apps", { minAvailable: 4, selector: { matchLabels: { "example.com/widget": "w" } } });
        const kind = {
            group: "example.com",
            kind: "Widget",
            replicas: "spec.size",
            defaultReplicas: 1,
            podLabels: { "example.com/widget": "{name}" },
        };
        expectUndecided(await runStack(pdbAllowsDisruption, [widget, budget]), /holds custom resources \(Widget w\)/);
        expectViolations(
            await runStack(pdbAllowsDisruption, [widget, budget], { customWorkloads: [kind] }),
            /requires minAvailable 4 \(4 pods\) of the 4 replicas of Widget apps\/w/,
        );
        // A configured Alertmanager that reads another label replaces the built-in one.
        const mine = {
            group: "monitoring.coreos.com",
            kind: "Alertmanager",
            replicas: "spec.replicas",
            defaultReplicas: 1,
            podLabels: { mine: "{name}" },
        };
        expectUndecided(
            await runStack(pdbAllowsDisruption, [alertmanager(), alertmanagerPdb()], { customWorkloads: [mine] }),
            /Alertmanager main/,
        );
    });
});

describe("policy pdb-allows-disruption: odd customWorkloads never crash it", () => {
    it("names an entry that is not an object as bad config", async () => {
        let error: unknown;
        try {
            await runStack(pdbAllowsDisruption, [alertmanager(), alertmanagerPdb()], { customWorkloads: ["Widget"] });
        } catch (err) {
            error = err;
        }
        expect(String(error)).to.match(/pdb-allows-disruption\.customWorkloads\[0\]: must be a/);
    });

    it("names what an incomplete entry misses as bad config (the schema the CLI validates too), never a crash", async () => {
        for (const [entry, problem] of [
            [{ group: "example.com", kind: "Widget" }, /customWorkloads\[0\]\.replicas: is required/],
            [
                { group: "example.com", kind: "Widget", replicas: 3, podLabels: "x" },
                /customWorkloads\[0\]\.podLabels: must be an object, not "x"/,
            ],
        ] as const) {
            let error: unknown;
            try {
                await runStack(pdbAllowsDisruption, [alertmanager(), alertmanagerPdb()], { customWorkloads: [entry] });
            } catch (err) {
                error = err;
            }
            expect(String(error)).to.match(problem);
        }
        expectClean(await runStack(pdbAllowsDisruption, [alertmanager(), alertmanagerPdb()], { customWorkloads: [] }));
    });
});
