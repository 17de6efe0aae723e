/**
 * tools/replacements.ts against its sources: the replacement and node-roll rules of every type
 * the program registers (the table's and the node-group kinds') compared with the upstream facts
 * kept in test/fixtures/replacements/upstream.yaml, each with the file and commit it was read at.
 */
import { expect } from "chai";
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";
import { KUBERNETES_REPLACE_ON, REPLACEMENT_RULES, replacementRule } from "../../tools/replacements";
import { ROOT } from "../mocks";

interface Fact {
    resource: string;
    read: string;
    forceNew: string[];
    rollsNodes?: string[];
    notSetByProgram?: string[];
}

const FACTS = YAML.parse(fs.readFileSync(path.join(ROOT, "test", "fixtures", "replacements", "upstream.yaml"), "utf8")) as {
    provider: string;
    types: Record<string, Fact>;
    notYetChecked: string[];
};

/** An upstream attribute path as pulumi-aws names the input: `launch_template.id` → `launchTemplate.id`. */
const camel = (attribute: string) => attribute.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

describe("tools/replacements.ts against upstream (test/fixtures/replacements/upstream.yaml)", () => {
    it("names the provider version the facts were read for, and the one package.json pins", () => {
        const pinned = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { dependencies: Record<string, string> })
            .dependencies["@pulumi/aws"];
        expect(FACTS.provider).to.include(`@pulumi/aws ${pinned}`);
    });

    it("holds a fact, or a note that it is still unchecked, for every type the program registers, and for no other", () => {
        const covered = [...Object.keys(FACTS.types), ...FACTS.notYetChecked];
        expect(covered).to.have.members(Object.keys(REPLACEMENT_RULES));
        expect(new Set(covered).size).to.equal(covered.length);
    });

    for (const [type, fact] of Object.entries(FACTS.types)) {
        it(`${type}: replaces exactly on what ${fact.resource} marks ForceNew (terraform-provider-aws ${fact.resource} schema, pulumi-aws camelCase inputs)`, () => {
            const rule = REPLACEMENT_RULES[type];
            expect(rule, type).to.not.equal(undefined);
            expect([...rule.replaceOn].sort()).to.deep.equal(fact.forceNew.map(camel).sort());
            expect(rule.source).to.include(fact.resource);
        });

        it(`${type}: rolls nodes exactly on what upstream rolls them on${fact.rollsNodes ? "" : " (nothing)"}`, () => {
            const expected = (fact.rollsNodes ?? []).map(camel).sort();
            expect([...(REPLACEMENT_RULES[type].rollsNodesOn ?? [])].sort()).to.deep.equal(expected);
            // An attribute the program never sets is named as such, not silently dropped.
            for (const unset of fact.notSetByProgram ?? []) {
                expect(expected, type).to.not.include(camel(unset));
            }
        });
    }

    it("replaces any other Kubernetes object on a new name or namespace, and knows nothing of other types (pulumi-kubernetes: metadata.name and .namespace are immutable)", () => {
        expect(replacementRule("kubernetes:core/v1:ConfigMap")).to.deep.equal({
            replaceOn: ["metadata.name", "metadata.namespace"],
            source: "pulumi-kubernetes: metadata.name and metadata.namespace are immutable",
        });
        expect(KUBERNETES_REPLACE_ON).to.deep.equal(["metadata.name", "metadata.namespace"]);
        // A Helm release is no Kubernetes object: its own entry, and no fallback for another version.
        expect(replacementRule("kubernetes:helm.sh/v3:Release")).to.equal(REPLACEMENT_RULES["kubernetes:helm.sh/v3:Release"]);
        expect(replacementRule("kubernetes:helm.sh/v4:Chart")).to.equal(undefined);
        expect(replacementRule("aws:s3/bucket:Bucket")).to.equal(undefined);
        expect(replacementRule("aws:eks/nodeGroup:NodeGroup")).to.equal(REPLACEMENT_RULES["aws:eks/nodeGroup:NodeGroup"]);
    });
});
