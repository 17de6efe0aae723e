import { expect } from "chai";
import { kubernetesKind, preStopSleep, workloadKind } from "eks-platform-evaluation";

describe("policy lib: Kubernetes kinds", () => {
    it("reads built-in kinds from the type token and custom resources from apiVersion/kind", () => {
        expect(kubernetesKind("kubernetes:apps/v1:Deployment", {})).to.deep.equal({ group: "apps", version: "v1", kind: "Deployment" });
        expect(kubernetesKind("kubernetes:core/v1:Pod", {})).to.deep.equal({ group: "", version: "v1", kind: "Pod" });
        expect(kubernetesKind("kubernetes:karpenter.sh/v1:NodePool", { apiVersion: "karpenter.sh/v1", kind: "NodePool" })).to.deep.equal({
            group: "karpenter.sh",
            version: "v1",
            kind: "NodePool",
        });
        expect(
            kubernetesKind("kubernetes:apiextensions.k8s.io:CustomResource", { apiVersion: "karpenter.sh/v1", kind: "NodePool" }),
        ).to.deep.equal({ group: "karpenter.sh", version: "v1", kind: "NodePool" });
        expect(kubernetesKind("aws:ec2/vpc:Vpc", {})).to.equal(undefined);
        expect(workloadKind("kubernetes:apps/v1:DeploymentPatch", {})).to.equal(undefined);
        expect(workloadKind("kubernetes:batch/v1:CronJob", {})).to.equal("CronJob");
    });

    it("reads preStop sleeps from the sleep action and from exec commands", () => {
        expect(preStopSleep({ lifecycle: { preStop: { sleep: { seconds: 7 } } } }).seconds).to.equal(7);
        expect(preStopSleep({ lifecycle: { preStop: { exec: { command: ["sleep", "5"] } } } }).seconds).to.equal(5);
        expect(
            preStopSleep({ lifecycle: { preStop: { exec: { command: ["/bin/sh", "-c", "sleep 10 && nginx -s quit; sleep 2"] } } } })
                .seconds,
        ).to.equal(12);
        expect(preStopSleep({ lifecycle: { preStop: { httpGet: { path: "/drain", port: 8080 } } } }).seconds).to.equal(0);
        expect(preStopSleep({}).seconds).to.equal(0);
    });

    const execSleep = (command: unknown[], env?: unknown[]) => preStopSleep({ env, lifecycle: { preStop: { exec: { command } } } });

    it("reads the sleep action's seconds as the API server does: a non-negative integer, never a string", () => {
        expect(preStopSleep({ lifecycle: { preStop: { sleep: { seconds: 5 } } } })).to.deep.equal({
            seconds: 5,
            unreadable: [],
            runtime: [],
        });
        expect(preStopSleep({ lifecycle: { preStop: { sleep: { seconds: "5" } } } }).unreadable).to.deep.equal([
            'sleep.seconds "5" (a string: the API server requires an integer)',
        ]);
        expect(preStopSleep({ lifecycle: { preStop: { sleep: { seconds: "soon" } } } }).unreadable).to.have.length(1);
        expect(preStopSleep({ lifecycle: { preStop: { sleep: { seconds: 2.5 } } } }).unreadable).to.have.length(1);
        expect(preStopSleep({ lifecycle: { preStop: { sleep: {} } } }).unreadable).to.have.length(1);
    });

    it("reads sleep run directly by any path, summing its operands with GNU units", () => {
        expect(execSleep(["/bin/sleep", "60"]).seconds).to.equal(60);
        expect(execSleep(["/usr/bin/sleep", "60"]).seconds).to.equal(60);
        expect(execSleep(["sleep", "1m", "30s"]).seconds).to.equal(90);
        expect(execSleep(["sleep", "0.5"]).seconds).to.equal(0.5);
        expect(execSleep(["sleep", "1h"]).seconds).to.equal(3600);
        expect(execSleep(["sleep", "1d"]).seconds).to.equal(86_400);
        expect(execSleep(["busybox", "sleep", "3"]).seconds).to.equal(3);
        expect(execSleep(["sleep", "infinity"]).seconds).to.equal(Infinity);
        expect(execSleep(["nginx", "-s", "quit"])).to.deep.equal({ seconds: 0, unreadable: [], runtime: [] });
    });

    it("finds sleep calls in shell -c scripts, by any shell and path", () => {
        expect(execSleep(["sh", "-c", "sleep 1m"]).seconds).to.equal(60);
        expect(execSleep(["/bin/sh", "-c", "/bin/sleep 5 && nginx -s quit"]).seconds).to.equal(5);
        expect(execSleep(["/bin/bash", "-ec", "sleep 0.5; /usr/bin/sleep 2 1s"]).seconds).to.equal(3.5);
        expect(execSleep(["bash", "-o", "pipefail", "-c", "exec sleep '10'"]).seconds).to.equal(10);
        expect(execSleep(["sh", "-c", 'if true; then sleep "4"; fi # sleep 100']).seconds).to.equal(4);
        expect(execSleep(["sh", "-c", "sleep 5 >/dev/null 2>&1\nkill -TERM 1"]).seconds).to.equal(5);
        expect(execSleep(["sh", "-c", "sh -c 'sleep 3'"]).seconds).to.equal(3);
        expect(execSleep(["sh", "-c", "echo 'sleep 100'"]).seconds, "quoted text is not a command").to.equal(0);
        expect(execSleep(["sh", "/drain.sh"]).seconds, "a script file cannot be read").to.equal(0);
    });

    it("tells operands sleep refuses (unreadable) from values only known at run time (runtime), never counting either as 0", () => {
        expect(execSleep(["sh", "-c", "sleep $DELAY"])).to.deep.equal({ seconds: 0, unreadable: [], runtime: ["$DELAY"] });
        expect(execSleep(["sh", "-c", "sleep $(cat /etc/delay)"]).runtime).to.deep.equal(["$(cat /etc/delay)"]);
        expect(execSleep(["sleep", "5x"])).to.deep.equal({ seconds: 0, unreadable: ["5x"], runtime: [] });
        expect(execSleep(["sleep", "$DELAY"], [{ name: "DELAY", value: "9" }]).unreadable, "no shell: nothing expands").to.deep.equal([
            "$DELAY",
        ]);
        expect(
            execSleep(["sh", "-c", "sleep $DELAY"], [{ name: "DELAY", valueFrom: { configMapKeyRef: { name: "x", key: "y" } } }]),
        ).to.deep.equal({ seconds: 0, unreadable: [], runtime: ["$DELAY"] });
        expect(execSleep(["sh", "-c", "D=5x; sleep $D"]).unreadable, "a literal sleep refuses").to.deep.equal(["$D"]);
    });

    it("expands variables in shell scripts from literal env values and ${VAR:-default}", () => {
        expect(execSleep(["sh", "-c", 'sleep "$DELAY"'], [{ name: "DELAY", value: "9" }])).to.deep.equal({
            seconds: 9,
            unreadable: [],
            runtime: [],
        });
        expect(execSleep(["sh", "-c", "sleep ${DELAY:-7}"]).seconds).to.equal(7);
        expect(execSleep(["sh", "-c", "sleep ${DELAY:-7}"], [{ name: "DELAY", value: "2m" }]).seconds).to.equal(120);
    });

    it("reads variables the script sets itself, from the next command on", () => {
        expect(execSleep(["sh", "-c", "D=5; sleep $D"])).to.deep.equal({ seconds: 5, unreadable: [], runtime: [] });
        expect(execSleep(["sh", "-c", 'export D=2m\nsleep "$D"'])).to.deep.equal({ seconds: 120, unreadable: [], runtime: [] });
        expect(execSleep(["sh", "-c", "D=$(cat /x); sleep $D"]).runtime, "a value only known at run time").to.deep.equal(["$D"]);
    });

    it("reads operands as GNU sleep does (a leading + and an exponent)", () => {
        expect(execSleep(["sleep", "+5"]).seconds).to.equal(5);
        expect(execSleep(["sleep", "1e1"]).seconds).to.equal(10);
        expect(execSleep(["sleep", "1.5e1s"]).seconds).to.equal(15);
    });

    it("does not take here-document bodies for commands", () => {
        expect(execSleep(["sh", "-c", "cat <<EOF > /tmp/x\nsleep 99\nEOF\nsleep 1"]).seconds).to.equal(1);
        expect(execSleep(["bash", "-c", "cat <<- 'END'\n\tsleep 99\n\tEND\nsleep 2"]).seconds).to.equal(2);
        expect(execSleep(["sh", "-c", "cat << EOF\nsleep 99\n"]).seconds, "an unterminated body runs to the end").to.equal(0);
    });

    it("never throws on odd shapes", () => {
        for (const odd of [null, "sleep 5", 5, [], {}, { exec: null }, { exec: { command: "sleep 5" } }, { exec: { command: [5, "x"] } }]) {
            expect(preStopSleep({ lifecycle: { preStop: odd } }).seconds, JSON.stringify(odd)).to.equal(0);
        }
        expect(execSleep(["sh", "-c", "sleep 'unterminated"]).unreadable).to.deep.equal(["unterminated"]);
        expect(execSleep(["sh", "-c", 'sleep "$(a (b) c'])).to.have.property("seconds", 0);
    });
});
