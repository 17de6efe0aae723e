import { expect } from "chai";
import { GateInputError } from "../../../tools/cli/errors";
import { PackPolicy, parsePolicyPackConfig, reconcilePolicyConfig } from "../../../tools/gate/policyConfig";

function thrown(fn: () => unknown): Error {
    try {
        fn();
    } catch (err) {
        return err as Error;
    }
    throw new Error("expected an error");
}

describe("gate: policy pack config, as --policy-pack-config reads it", () => {
    it("accepts a level per policy, or an object with a level and properties", () => {
        const config = parsePolicyPackConfig(
            JSON.stringify({ all: "advisory", a: "mandatory", b: { enforcementLevel: "disabled", limit: 3 }, c: { limit: 4 } }),
            "x.json",
        );
        expect(config).to.deep.equal({
            all: { enforcementLevel: "advisory" },
            a: { enforcementLevel: "mandatory" },
            b: { enforcementLevel: "disabled", properties: { limit: 3 } },
            c: { properties: { limit: 4 } },
        });
        expect(parsePolicyPackConfig("  \n", "empty.json")).to.deep.equal({});
    });

    it("names every bad key in one error", () => {
        const err = thrown(() =>
            parsePolicyPackConfig(JSON.stringify({ a: "blocking", b: { enforcementLevel: 1 }, c: 7 }), "policies/config/dev.json"),
        );
        expect(err).to.be.instanceOf(GateInputError);
        expect(err.message).to.include("policies/config/dev.json (3 problems)");
        expect(err.message).to.match(/- a: "blocking" is not an enforcement level/);
        expect(err.message).to.match(/- b\.enforcementLevel: 1 is not an enforcement level/);
        expect(err.message).to.match(/- c: must be an enforcement level or an object/);
    });

    it("names the file and line of invalid JSON", () => {
        const err = thrown(() => parsePolicyPackConfig('{\n  "a": "mandatory",\n  "b": oops\n}', "bad.json"));
        expect(err.message).to.match(/^bad\.json:3: not valid JSON/);
    });

    const policies: PackPolicy[] = [
        {
            name: "replicas",
            description: "",
            kind: "resource",
            enforcementLevel: "mandatory",
            configSchema: { properties: { min: { type: "integer", minimum: 1, default: 2 }, label: { type: "string" } } },
        },
        {
            name: "quota",
            description: "",
            kind: "stack",
            enforcementLevel: "advisory",
            configSchema: { properties: { names: { type: "array", items: { type: "string" } } }, required: ["names"] },
        },
    ];

    it("fills schema defaults, applies `all`, then per-policy entries, merging properties", () => {
        const { config, warnings } = reconcilePolicyConfig(
            policies,
            {},
            {
                all: { enforcementLevel: "advisory" },
                replicas: { properties: { label: "x" } },
                quota: { enforcementLevel: "mandatory", properties: { names: ["a"] } },
            },
            "c.json",
        );
        expect(config.replicas).to.deep.equal({ enforcementLevel: "advisory", properties: { min: 2, label: "x" } });
        expect(config.quota).to.deep.equal({ enforcementLevel: "mandatory", properties: { names: ["a"] } });
        expect(warnings).to.deep.equal([]);
    });

    it("keeps each policy's own level when the file says nothing about it", () => {
        const { config } = reconcilePolicyConfig(policies, {}, { quota: { properties: { names: [] } } }, "c.json");
        expect(config.replicas.enforcementLevel).to.equal("mandatory");
        expect(config.quota.enforcementLevel).to.equal("advisory");
    });

    it("validates properties against each configSchema and names policy and key", () => {
        const err = thrown(() =>
            reconcilePolicyConfig(policies, {}, { replicas: { properties: { min: 0, label: 5 } } }, "policies/config/prod.json"),
        );
        expect(err).to.be.instanceOf(GateInputError);
        expect(err.message).to.include("policies/config/prod.json (3 problems)");
        expect(err.message).to.include("replicas.min: must be ≥ 1, not 0");
        expect(err.message).to.include("replicas.label: must be a string, not 5");
        expect(err.message).to.include("quota.names: is required");
    });

    it("warns about a key that names no policy, since it configures nothing", () => {
        const { warnings } = reconcilePolicyConfig(
            policies,
            {},
            { quota: { properties: { names: [] } }, replicaz: "disabled" as never },
            "c.json",
        );
        expect(warnings).to.have.length(1);
        expect(warnings[0]).to.include('"replicaz" names no policy');
    });
});
