import { expect } from "chai";
import { formatPlanText, SETTINGS_SHOWN } from "../../../tools/render/planText";
import type { Plan } from "../../../tools/render/stackPlan";

describe("offline plan text", () => {
    const object = (name: string, spec: unknown): Plan["resources"][number] => ({
        type: "kubernetes:networking.k8s.io/v1:NetworkPolicy",
        name,
        props: { apiVersion: "networking.k8s.io/v1", kind: "NetworkPolicy", metadata: { name, namespace: "team" }, spec },
    });

    it("marks where it cuts a long spec, and how much is left out", () => {
        const long = {
            podSelector: {},
            ingress: Array.from({ length: 40 }, (_, i) => ({ from: [{ podSelector: { matchLabels: { app: `a${i}` } } }] })),
        };
        const lines = formatPlanText({
            stack: "x",
            violations: [],
            resources: [object("long", long), object("short", { podSelector: {} })],
        }).split("\n");
        const full = `team/long spec=${JSON.stringify(long)}`;
        const shown = lines[lines.findIndex((l) => l.includes("NetworkPolicy  long")) + 1].trim();
        expect(shown).to.equal(`${full.slice(0, SETTINGS_SHOWN)}… (${full.length - SETTINGS_SHOWN} more characters: see --format json)`);
        const short = lines[lines.findIndex((l) => l.includes("NetworkPolicy  short")) + 1].trim();
        expect(short).to.equal('team/short spec={"podSelector":{}}');
    });
});
