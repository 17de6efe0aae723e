import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import { needsOf, platformOf, unmet, unmetNeeds } from "../../../tools/manifests/platformFit";
import { parseManifests, typeToken } from "../../../tools/manifests/manifests";
import { validateKubernetesObject } from "../../../tools/gate/schema";
import { planOf, ROOT } from "../../mocks";
import { stackConfig, stacks } from "../../stackFiles";

/** Every stack of the repository (`Pulumi.<stack>.yaml`). */
const STACKS = stacks();

function manifests(dir: string) {
    return fs
        .readdirSync(dir)
        .filter((f) => /\.ya?ml$/.test(f))
        .flatMap((f) => parseManifests(fs.readFileSync(path.join(dir, f), "utf8"), path.relative(ROOT, path.join(dir, f))));
}

const EXAMPLES = manifests(path.join(ROOT, "examples"));
const FIXTURES = path.join(ROOT, "test", "fixtures", "manifests", "needs");

/** What platform-fit says per kind of stack (test/fixtures/manifests/needs/expected.json). */
interface Expected {
    examples: { unmet: string[]; undecided: string[] };
    provided: string[];
    missing: string[];
}
const EXPECTED = JSON.parse(fs.readFileSync(path.join(FIXTURES, "expected.json"), "utf8")) as Record<"standard" | "autoMode", Expected>;
/** The expectations of a stack's kind, read off its config (never its name). */
const expectedOf = (stack: string): Expected => EXPECTED[stackConfig(stack).autoMode.enabled ? "autoMode" : "standard"];
const named = (lines: string[], stack: string) => lines.map((l) => l.replaceAll("{stack}", stack));

describe("examples run on what each stack builds", function () {
    this.timeout(180_000);

    it("uses fixtures the API server would accept (official schemas)", async () => {
        const objects = manifests(FIXTURES);
        expect(objects.length).to.be.greaterThan(5);
        for (const { object } of objects) {
            await validateKubernetesObject(typeToken(String(object.apiVersion), String(object.kind)), object);
        }
    });

    it("finds what the examples rely on (so the check below has something to check)", () => {
        const needs = needsOf(EXAMPLES).map((n) => `${n.object}: ${n.requires.kind}`);
        expect(needs).to.include("StatefulSet redis/redis-cluster: defaultStorageClass");
        expect(needs).to.include("Ingress web/web: ingressClass");
        expect(needs).to.include("Ingress web/web: loadBalancerAnnotation");
        expect(needs).to.include("Namespace web: readinessGate");
    });

    for (const stack of STACKS) {
        it(`stack ${stack} provides every StorageClass, IngressClass, load balancer class and annotation the examples use, or says which it cannot tell (expected.json)`, async () => {
            const platform = platformOf(stack, (await planOf(stack)).resources);
            const found = unmet(needsOf(EXAMPLES), platform);
            const id = (u: (typeof found)[number]) => `${u.need.object} (${u.need.via})`;
            expect(found.filter((u) => !u.undecided).map(id)).to.deep.equal(expectedOf(stack).examples.unmet);
            expect(found.filter((u) => u.undecided).map(id)).to.deep.equal(expectedOf(stack).examples.undecided);
            // Whatever it is, the platform serves the claims and the IngressClass the examples name.
            expect(
                found.filter((u) => ["defaultStorageClass", "storageClass", "ingressClass"].includes(u.need.requires.kind)),
            ).to.deep.equal([]);
        });

        it(`stack ${stack} provides what docs/addons.md shows teams (default gp3 claim, alb Ingress, NLB Service, CPU HPA), but the controller's NLB class on EKS Auto Mode`, async () => {
            const platform = platformOf(stack, (await planOf(stack)).resources);
            const needs = needsOf(manifests(FIXTURES).filter((m) => m.file.endsWith("provided.yaml")));
            expect(needs.map((n) => n.requires.kind)).to.include.members([
                "defaultStorageClass",
                "ingressClass",
                "loadBalancerAnnotation",
                "loadBalancerClass",
                "metricsApi",
            ]);
            expect(unmetNeeds(needs, platform)).to.deep.equal(named(expectedOf(stack).provided, stack));
        });

        it(`stack ${stack} is reported, by name, for each manifest needing something it does not install`, async () => {
            const platform = platformOf(stack, (await planOf(stack)).resources);
            const found = unmetNeeds(needsOf(manifests(FIXTURES).filter((m) => m.file.endsWith("missing.yaml"))), platform);
            expect(found).to.deep.equal(named(expectedOf(stack).missing, stack));
        });
    }

    it("expects every kind of stack the repository has, and has a stack of each kind it expects", () => {
        const kinds = new Set(STACKS.map((s) => (stackConfig(s).autoMode.enabled ? "autoMode" : "standard")));
        expect([...kinds].sort()).to.deep.equal(
            Object.keys(EXPECTED)
                .filter((k) => k !== "_comment")
                .sort(),
        );
    });
});

describe("platformOf / unmetNeeds", () => {
    const storageClass = (name: string, provisioner: string, isDefault: boolean) => ({
        type: "kubernetes:storage.k8s.io/v1:StorageClass",
        name,
        props: { metadata: { name, annotations: { "storageclass.kubernetes.io/is-default-class": String(isDefault) } }, provisioner },
    });
    const ebsAddon = { type: "aws:eks/addon:Addon", name: "ebs", props: { addonName: "aws-ebs-csi-driver" } };
    const redis = EXAMPLES.filter((m) => m.object.kind === "StatefulSet");

    it("needs a default class served by an installed driver", () => {
        expect(unmetNeeds(needsOf(redis), platformOf("x", [storageClass("gp3", "ebs.csi.aws.com", true), ebsAddon]))).to.deep.equal([]);
        // The same class without the driver, or not marked default, leaves the claims Pending.
        expect(unmetNeeds(needsOf(redis), platformOf("x", [storageClass("gp3", "ebs.csi.aws.com", true)]))).to.have.length(1);
        expect(unmetNeeds(needsOf(redis), platformOf("x", [storageClass("gp3", "ebs.csi.aws.com", false), ebsAddon]))[0]).to.match(
            /needs a default StorageClass, which stack x does not provide: none is marked default \(it has gp3\)/,
        );
    });

    it("needs the load balancer controller and its IngressClass for the web example's Ingress, annotations and readiness-gate label", () => {
        const web = EXAMPLES.filter((m) => m.file.endsWith("web.yaml"));
        const unmet = unmetNeeds(needsOf(web), platformOf("bare", []));
        expect(
            unmet.some((m) =>
                /Ingress web\/web \(annotation alb.ingress.kubernetes.io\/target-type\) needs a load balancer controller that honours alb.ingress.kubernetes.io\/target-type, .*: the stack installs no AWS Load Balancer Controller and is not on EKS Auto Mode$/.test(
                    m,
                ),
            ),
        ).to.equal(true);
        expect(unmet.some((m) => /Namespace web \(label elbv2.k8s.aws\/pod-readiness-gate-inject\)/.test(m))).to.equal(true);
        const lbc = { type: "kubernetes:helm.sh/v3:Release", name: "lbc", props: { chart: "aws-load-balancer-controller" } };
        const withoutClass = unmetNeeds(needsOf(web), platformOf("lbc", [lbc]));
        expect(withoutClass).to.have.length(1);
        expect(withoutClass[0]).to.match(
            /Ingress web\/web \(spec\.ingressClassName\) needs IngressClass "alb", which stack lbc does not provide: it has none$/,
        );
        const alb = {
            type: "kubernetes:networking.k8s.io/v1:IngressClass",
            name: "alb",
            props: { metadata: { name: "alb" }, spec: { controller: "ingress.k8s.aws/alb" } },
        };
        expect(unmetNeeds(needsOf(web), platformOf("lbc", [lbc, alb]))).to.deep.equal([]);
    });

    it('reads claims of Pods, CronJobs and PVCs, and ignores a claim bound statically (storageClassName "")', () => {
        const claim = (storageClassName?: string) => ({
            accessModes: ["ReadWriteOnce"],
            ...(storageClassName === undefined ? {} : { storageClassName }),
        });
        const objects = [
            { kind: "PersistentVolumeClaim", metadata: { name: "static" }, spec: claim("") },
            {
                kind: "CronJob",
                metadata: { name: "backup", namespace: "ops" },
                spec: {
                    jobTemplate: {
                        spec: {
                            template: {
                                spec: { volumes: [{ name: "scratch", ephemeral: { volumeClaimTemplate: { spec: claim("io2") } } }] },
                            },
                        },
                    },
                },
            },
        ].map((object) => ({ file: "f.yaml", line: 1, object }));
        expect(needsOf(objects).map((n) => [n.object, n.via, n.requires])).to.deep.equal([
            ["CronJob ops/backup", "ephemeral volume scratch", { kind: "storageClass", name: "io2" }],
        ]);
    });
});
