/**
 * The per-stack `--policy-pack-config` files and the one table they are made from
 * (tools/docs/policyConfigs.ts, policies/config/levels.ts): the files are the table's, a hole in the
 * table is named by policy and environment, and a stale or stray file is named with what fixes it.
 */
import { expect } from "chai";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { policies } from "eks-platform-policies";
import { InputError } from "../../../tools/cli/errors";
import {
    type GeneratedFile,
    LEVEL_TABLE,
    type LevelTable,
    levelTableProblems,
    policyConfigFiles,
    staleConfigProblems,
} from "../../../tools/docs/policyConfigs";
import { declarationsOf, packPolicyOf } from "../../../tools/docs/policyTables";
import { parsePolicyPackConfig, reconcilePolicyConfig } from "../../../tools/gate/policyConfig";
import { ROOT } from "../../mocks";
import { stacks } from "../../stackFiles";

const NAMES = policies.map((p) => p.name);

/** `LEVEL_TABLE` with `edit` applied to a deep copy of its rows. */
function edited(edit: (levels: Record<string, Record<string, unknown>>) => void, stackTiers?: Record<string, string>): LevelTable {
    const levels = JSON.parse(JSON.stringify(LEVEL_TABLE.levels)) as Record<string, Record<string, unknown>>;
    edit(levels);
    return { ...LEVEL_TABLE, levels, stacks: stackTiers ?? LEVEL_TABLE.stacks };
}

describe("tools/docs/policyConfigs.ts: each stack's policy config, made from the table of levels", () => {
    it("policies/config/<stack>.json is what policies/config/levels.ts makes, for every stack (else: run npm run docs)", () => {
        const files = policyConfigFiles(ROOT, NAMES);
        // A generator that made nothing would pass vacuously.
        expect(files.map((f) => f.file)).to.deep.equal(stacks().map((s) => `policies/config/${s}.json`));
        expect(staleConfigProblems(ROOT, files)).to.deep.equal([]);
    });

    it("each file gives every policy its tier's level and knobs, as the CLI reads it, in the order the pack reports them", () => {
        const pack = declarationsOf(policies).map(packPolicyOf);
        for (const { file, generated } of policyConfigFiles(ROOT, NAMES)) {
            const stack = path.basename(file, ".json");
            const tier = LEVEL_TABLE.stacks[stack];
            const raw = JSON.parse(generated) as Record<string, unknown>;
            expect(Object.keys(raw), file).to.deep.equal(NAMES);
            const { config, warnings } = reconcilePolicyConfig(pack, {}, parsePolicyPackConfig(generated, file), file);
            expect(warnings, file).to.deep.equal([]);
            for (const name of NAMES) {
                const cell = LEVEL_TABLE.levels[name][tier];
                const { enforcementLevel, ...knobs } =
                    typeof cell === "string" ? { enforcementLevel: cell } : (cell as Record<string, unknown>);
                expect(config[name].enforcementLevel, `${file}: ${name}`).to.equal(enforcementLevel);
                expect(config[name].properties, `${file}: ${name}`).to.deep.include(knobs);
            }
        }
    });

    it("stacks of one tier get one file's text", () => {
        const files = policyConfigFiles(ROOT, NAMES);
        const byTier = new Map<string, Set<string>>();
        for (const f of files) {
            const tier = LEVEL_TABLE.stacks[path.basename(f.file, ".json")];
            byTier.set(tier, (byTier.get(tier) ?? new Set()).add(f.generated));
        }
        expect([...byTier].filter(([, texts]) => texts.size !== 1).map(([tier]) => tier)).to.deep.equal([]);
        // Tiers that differ make different files (the check above would pass if every file were one text).
        expect(new Set(files.map((f) => f.generated)).size).to.equal(byTier.size);
    });

    describe("the table's holes and strays", () => {
        it("has none: a level for every policy in every tier, a tier for every stack", () => {
            expect(levelTableProblems(LEVEL_TABLE, NAMES, stacks())).to.deep.equal([]);
        });

        it("names the policy and the environment of a missing level, a setting that is no level, and a tier or stack it does not know", () => {
            const table = edited(
                (levels) => {
                    delete levels["vpc-dns"].prod;
                    levels["workload-resources"].dev = "loud";
                    levels["drain-window"].dev = { maxHopLimit: 1 };
                    levels["subnet-eks-tags"].staging = "mandatory";
                    levels["vpc-dnss"] = { dev: "advisory", prod: "mandatory" };
                },
                { ...LEVEL_TABLE.stacks, qa: "staging", gone: "dev" },
            );
            expect(levelTableProblems(table, NAMES, [...stacks(), "qa", "test"])).to.deep.equal([
                'workload-resources: dev: "loud" is neither a level (advisory, mandatory, remediate, disabled) nor an object with enforcementLevel and knobs',
                'drain-window: dev: {"maxHopLimit":1} is neither a level (advisory, mandatory, remediate, disabled) nor an object with enforcementLevel and knobs',
                "vpc-dns: no level for environment prod in policies/config/levels.ts",
                "policies/config/levels.ts: subnet-eks-tags.staging: staging is not a tier (TIERS: dev and prod)",
                "policies/config/levels.ts: vpc-dnss names no policy of the pack",
                'stack test: no tier in STACK_TIERS (policies/config/levels.ts), so no policies/config/test.json: add "test": "<tier>"',
                "policies/config/levels.ts: STACK_TIERS gives stack qa the tier staging, not one of TIERS (dev and prod)",
                "policies/config/levels.ts: STACK_TIERS names stack gone, which has no Pulumi.gone.yaml",
            ]);
        });

        it("npm run docs refuses a table with a hole, naming every problem, and writes nothing", () => {
            const table = edited((levels) => delete levels["vpc-dns"].dev);
            expect(() => policyConfigFiles(ROOT, NAMES, table))
                .to.throw(InputError)
                .with.property("message")
                .that.equals(
                    "policies/config/levels.ts cannot make the policy configs (1 problem):\n  - vpc-dns: no level for environment dev in policies/config/levels.ts",
                );
        });
    });

    it("names a file that differs from the table, a missing one and a stray one, with what fixes each", () => {
        const root = fs.mkdtempSync(path.join(os.tmpdir(), "policy-configs-"));
        fs.mkdirSync(path.join(root, "policies", "config"), { recursive: true });
        const write = (f: string, text: string) => fs.writeFileSync(path.join(root, "policies", "config", f), text);
        write("dev.json", '{ "vpc-dns": "advisory" }\n');
        write("stage.json", "{}\n");
        write("prod.json", '{ "vpc-dns": "mandatory" }\n');
        const files: GeneratedFile[] = [
            { file: "policies/config/dev.json", current: '{ "vpc-dns": "advisory" }\n', generated: '{ "vpc-dns": "mandatory" }\n' },
            { file: "policies/config/prod.json", current: '{ "vpc-dns": "mandatory" }\n', generated: '{ "vpc-dns": "mandatory" }\n' },
            { file: "policies/config/qa.json", current: undefined, generated: "{}\n" },
        ];
        expect(staleConfigProblems(root, files)).to.deep.equal([
            "policies/config/dev.json is not what policies/config/levels.ts makes: run `npm run docs` (edit the table, not the file)",
            "policies/config/qa.json is missing: run `npm run docs`",
            "policies/config/stage.json: no stack stage in STACK_TIERS (policies/config/levels.ts): add it there and run `npm run docs`, or delete the file",
        ]);
    });
});
