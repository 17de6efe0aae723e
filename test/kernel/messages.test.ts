import { expect } from "chai";
import { fieldOf, fieldText, parseFieldPath, undecided, violation } from "eks-platform-kernel";

describe("kernel messages: the field a verdict names", () => {
    it("writes a path as kubectl explain and the API server's field errors do: dots, [index], quoted keys that are not plain words", () => {
        expect(fieldText(["spec", "template", "spec", "containers", 1, "resources"])).to.equal(
            "spec.template.spec.containers[1].resources",
        );
        expect(fieldText(["metadata", "annotations", "platform/singleton"])).to.equal('metadata.annotations["platform/singleton"]');
        expect(fieldText(["metadata", "labels", "app.kubernetes.io/name"])).to.equal('metadata.labels["app.kubernetes.io/name"]');
        expect(fieldText([0, "name"])).to.equal("[0].name");
    });

    it("reads back every path it writes, and nothing else", () => {
        for (const at of [
            ["spec", "template", "spec", "initContainers", 0, "lifecycle", "preStop"],
            ["metadata", "annotations", 'odd "quoted" key'],
            ["spec", "selector"],
            ["apiVersion"],
            ["items", 12, "spec"],
        ]) {
            expect(parseFieldPath(fieldText(at)), fieldText(at)).to.deep.equal(at);
        }
        for (const bad of ["", ".spec", "spec..x", "spec[x]", "spec[0]name", "spec name", "spec.", 'a["unclosed]']) {
            expect(parseFieldPath(bad), bad).to.equal(undefined);
        }
    });

    it("ends a violation and an undecided verdict with the field, and the gate's reader takes it off again", () => {
        const at = ["spec", "template", "spec", "terminationGracePeriodSeconds"];
        const v = violation("Deployment a/b sets it to 10", "it is too short", "raise it", at);
        expect(v).to.equal(
            "Deployment a/b sets it to 10. Why: it is too short. Fix: raise it. At: spec.template.spec.terminationGracePeriodSeconds.",
        );
        expect(fieldOf(v)).to.deep.equal({ message: "Deployment a/b sets it to 10. Why: it is too short. Fix: raise it.", field: at });
        const u = undecided("a", "b", "c", ["spec", "selector"]);
        expect(fieldOf(u)).to.deep.equal({ message: "Undecided: a. Why: b. To decide it: c.", field: ["spec", "selector"] });
        // The SDK's description line before the message stays.
        expect(fieldOf(`Policy description.\n${v}`).message).to.equal(`Policy description.\n${fieldOf(v).message}`);
    });

    it("leaves a message without a field as it is: no trailer, an empty path, or text that only looks like one", () => {
        const plain = violation("a", "b", "c");
        expect(plain).to.equal("a. Why: b. Fix: c.");
        expect(violation("a", "b", "c", [])).to.equal(plain);
        expect(fieldOf(plain)).to.deep.equal({ message: plain });
        for (const m of ["a. Why: b. Fix: see the docs. At: not a path here.", "a. Why: b. Fix: c. At: spec.replicas"]) {
            expect(fieldOf(m), m).to.deep.equal({ message: m });
        }
    });
});

describe("kernel messages: every part ends with a period", () => {
    it("adds one after a user's value that ends in ! or ? (a namespace named '!'), so the parts stay readable and parseable", () => {
        expect(violation("Deployment !/api is not covered in namespace !", "b", "c?")).to.equal(
            "Deployment !/api is not covered in namespace !. Why: b. Fix: c?.",
        );
        expect(violation("a.", "b.", "c.")).to.equal("a. Why: b. Fix: c.");
    });
});
