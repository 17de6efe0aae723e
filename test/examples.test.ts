import { expect } from "chai";
import { preStopSleep } from "eks-platform-evaluation";
import * as fs from "fs";
import * as path from "path";
import { parseManifests, typeToken } from "../tools/manifests/manifests";
import { validateKubernetesObject } from "../tools/gate/schema";
import { ROOT, runTool } from "./mocks";

const check = (...args: string[]) => runTool("policyCheck.ts", args);

describe("examples/: drain-safe workloads", function () {
    this.timeout(120_000);
    const objects = fs
        .readdirSync(path.join(ROOT, "examples"))
        .filter((f) => f.endsWith(".yaml"))
        .flatMap((f) =>
            parseManifests(fs.readFileSync(path.join(ROOT, "examples", f), "utf8"), f).map((m) => m.object as Record<string, any>),
        );
    const ofKind = (kind: string) => objects.filter((o) => o.kind === kind);

    it("holds the nginx web Deployment behind an ALB Ingress with ip targets and a 6-replica Redis Cluster StatefulSet with headless Service and PVCs", () => {
        const web = ofKind("Deployment").find((d) => d.spec.template.spec.containers[0].image.startsWith("nginx:"));
        expect(web, "nginx Deployment").to.not.equal(undefined);
        const ingress = ofKind("Ingress").find((i) => i.metadata.namespace === web!.metadata.namespace);
        expect(ingress?.spec.ingressClassName).to.equal("alb");
        expect(ingress?.metadata.annotations["alb.ingress.kubernetes.io/target-type"]).to.equal("ip");
        const redis = ofKind("StatefulSet").find((s) => s.spec.template.spec.containers[0].image.startsWith("redis:"));
        expect(redis?.spec.replicas).to.equal(6);
        expect(redis?.spec.volumeClaimTemplates).to.have.length(1);
        const headless = ofKind("Service").find((s) => s.metadata.name === redis!.spec.serviceName);
        expect(headless?.spec.clusterIP).to.equal("None");
    });

    it("passes the official Kubernetes schemas", async () => {
        for (const o of objects) {
            await validateKubernetesObject(typeToken(o.apiVersion, o.kind), o);
        }
    });

    it("gives every workload resources, a grace period longer than its preStop sleep, and a PDB allowing one disruption", () => {
        const workloads = [...ofKind("Deployment"), ...ofKind("StatefulSet")];
        expect(workloads).to.have.length(2);
        for (const w of workloads) {
            const pod = w.spec.template.spec;
            for (const c of pod.containers) {
                expect(c.resources.requests, `${w.metadata.name} requests`).to.include.keys("cpu", "memory");
                expect(c.resources.limits, `${w.metadata.name} limits`).to.include.keys("memory");
                const sleep = preStopSleep(c).seconds;
                expect(sleep, `${w.metadata.name} preStop`).to.be.greaterThan(0);
                expect(pod.terminationGracePeriodSeconds, `${w.metadata.name} grace`).to.be.greaterThan(sleep);
            }
            const labels = w.spec.template.metadata.labels as Record<string, string>;
            const pdbs = ofKind("PodDisruptionBudget").filter(
                (p) =>
                    p.metadata.namespace === w.metadata.namespace &&
                    Object.entries(p.spec.selector.matchLabels as Record<string, string>).every(([k, v]) => labels[k] === v),
            );
            expect(pdbs, `${w.metadata.name} PDB`).to.have.length(1);
            const { maxUnavailable, minAvailable } = pdbs[0].spec;
            expect(
                maxUnavailable === 1 || (typeof minAvailable === "number" && minAvailable === w.spec.replicas - 1),
                `${w.metadata.name} PDB allows one`,
            ).to.equal(true);
        }
    });

    it("passes the real policy pack with its prod config, evaluated by at least one policy", async () => {
        const r = await check("--env", "prod", "examples");
        expect(r.code, `${r.stdout}\n${r.stderr}`).to.equal(0);
        const summary = /^(\d+) mandatory, (\d+) advisory, (\d+) policies evaluated over (\d+) resources/m.exec(r.stdout);
        expect(summary, r.stdout).to.not.equal(null);
        expect(Number(summary![3]), "policies evaluated").to.be.greaterThan(0);
        expect(Number(summary![4])).to.equal(objects.length);
    });
});
