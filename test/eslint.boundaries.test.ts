import { expect } from "chai";
import * as path from "path";
import { ROOT } from "./mocks";

type Message = { ruleId: string | null; message: string };
interface LinterLike {
    verify(code: string, config: unknown[], options: { filename: string }): Message[];
}

/** What the repository's layering rules (eslint.boundaries.mjs) say about `code` in `file`. */
async function lint(file: string, code: string): Promise<string[]> {
    // ESM-only config, loaded the way ESLint loads it.
    const { boundaries } = (await import(path.join(ROOT, "eslint.boundaries.mjs"))) as { boundaries: unknown[] };
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { Linter } = require("eslint") as { Linter: new (o: { cwd: string; configType: "flat" }) => LinterLike };
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const tseslint = require("typescript-eslint") as { parser: unknown };
    const linter = new Linter({ cwd: ROOT, configType: "flat" });
    const config = [{ files: ["**/*.ts"], languageOptions: { parser: tseslint.parser } }, ...boundaries];
    return linter
        .verify(code, config, { filename: path.join(ROOT, file) })
        .filter((m) => m.ruleId === "no-restricted-imports")
        .map((m) => m.message);
}

describe("layering: lint refuses a deep import or a layering break (eslint.boundaries.mjs)", () => {
    const refused: [string, string, RegExp][] = [
        ["components/network.ts", 'import { parseCidr } from "eks-platform-kernel/cidr";', /exports map/],
        ["tools/manifests/drain.ts", 'import { rehearse } from "eks-platform-rehearsal/rollout";', /exports map/],
        ["test/x.test.ts", 'import { drainWindow } from "eks-platform-policies/drainWindow";', /exports map/],
        // The evaluation library was the kernel's second entry point; it is a package of its own now.
        ["tools/gate/gate.ts", 'import { Verdicts } from "eks-platform-kernel/policy";', /exports map/],
        ["tools/gate/gate.ts", 'import { readPdbs } from "eks-platform-evaluation/stack";', /exports map/],
        ["components/cluster.ts", 'import { violation } from "eks-platform-evaluation";', /only through the kernel/],
        ["components/cluster.ts", 'import { violation } from "../evaluation/verdicts";', /by package name/],
        ["evaluation/stack.ts", 'import { rehearse } from "eks-platform-rehearsal";', /only on the kernel/],
        ["evaluation/stack.ts", 'import { asArray } from "../kernel/values";', /by package name/],
        ["kernel/values.ts", 'import { Verdicts } from "eks-platform-evaluation";', /depends on nothing/],
        ["components/network.ts", 'import { policies } from "eks-platform-policies";', /only through the kernel/],
        ["components/cluster.ts", 'import { rehearse } from "eks-platform-rehearsal";', /only through the kernel/],
        ["components/cluster.ts", 'import { parseCidr } from "../kernel/cidr";', /by package name/],
        ["policies/vpcDns.ts", 'import { ConfigError } from "../components/config";', /never imports components/],
        ["policies/vpcDns.ts", 'import { InputError } from "../tools/cli/errors";', /never imports components/],
        ["policies/runtime/packRuntime.ts", 'import { x } from "../../kernel/values";', /by package name/],
        ["rehearsal/read.ts", 'import { policies } from "eks-platform-policies";', /only on the kernel/],
        ["rehearsal/read.ts", 'import type { Plan } from "../tools/render/plan";', /only on the kernel/],
        ["rehearsal/rollouts/managedUpdate.ts", 'import type { Plan } from "../../tools/render/plan";', /only on the kernel/],
        ["rehearsal/rollouts/managedUpdate.ts", 'import { policies } from "eks-platform-policies";', /only on the kernel/],
        ["rehearsal/rollouts/sub/x.ts", 'import { Rollout } from "../../rollout";', /only on the kernel/],
        ["kernel/values.ts", 'import { rehearse } from "eks-platform-rehearsal";', /depends on nothing/],
        ["kernel/values.ts", 'import { ConfigError } from "../components/config";', /depends on nothing/],
        ["tools/gate/gate.ts", 'import { Verdicts } from "../evaluation/verdicts";', /by package name/],
        ["test/x.test.ts", 'import { Verdicts } from "../evaluation/verdicts";', /by package name/],
        ["test/tools/x.test.ts", 'import { rehearse } from "../../rehearsal/rollout";', /by package name/],
        ["test/components/addons/x.test.ts", 'import { vpcDns } from "../../../policies/vpcDns";', /by package name/],
    ];
    for (const [file, code, why] of refused) {
        it(`refuses in ${file}: ${code}`, async () => {
            const messages = await lint(file, code);
            expect(messages, code).to.have.length(1);
            expect(messages[0]).to.match(why);
        });
    }

    const allowed: [string, string][] = [
        ["components/network.ts", 'import { parseCidr } from "eks-platform-kernel";'],
        ["rehearsal/read.ts", 'import { Verdicts } from "eks-platform-evaluation";\nimport { place } from "./placement";'],
        ["rehearsal/rollouts/managedUpdate.ts", 'import { Rollout } from "../rollout";\nimport { newReport } from "./method";'],
        [
            "policies/drainRehearsal.ts",
            'import { rehearse } from "eks-platform-rehearsal";\nimport { Verdicts } from "eks-platform-evaluation";',
        ],
        ["policies/index.ts", 'import { memoizeStructConversion } from "./runtime/packRuntime";'],
        [
            "test/x.test.ts",
            'import eniMaxPods from "eks-platform-kernel/data/eniMaxPods.json";\nimport { policies } from "eks-platform-policies";',
        ],
        [
            "dev/bench.ts",
            'import { memoizeStructConversion } from "eks-platform-policies/runtime";\nimport { ConfigError } from "../components/config";',
        ],
        ["evaluation/stack.ts", 'import { Verdicts } from "./verdicts";\nimport { asArray } from "eks-platform-kernel";'],
        // test/'s own folders named like the packages hold test helpers, not the packages.
        ["test/tools/x.test.ts", 'import { runStack } from "../policies/harness";'],
        ["test/rehearsal/x.test.ts", 'import * as f from "../policies/fixtures";\nimport { ROOT } from "../mocks";'],
    ];
    for (const [file, code] of allowed) {
        it(`admits in ${file}: ${code.split("\n")[0]}`, async () => {
            expect(await lint(file, code)).to.deep.equal([]);
        });
    }
});
