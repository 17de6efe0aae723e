/**
 * `npm run deployer-policy -- <stack> [--boundary | --drift] [--state-bucket <name>]`: the IAM
 * policy of the stack's deploy role (`access.deployer`), derived from what the stack's plan
 * creates; with `--boundary` the permissions boundary every role of the stack carries; with
 * `--drift` the read-only policy of the drift check's role (`access.drift`): the deploy policy's
 * reads (tools/deployRole.ts says what each grants). The account, partition and region come from the stack file; the state bucket
 * from `--state-bucket` (a `<state-bucket>` placeholder without it).
 *
 * Exit codes: 0 printed; 2 bad input (unknown stack, bad config) or a plan the policy cannot scope
 * (a type without actions, a role outside the prefix, a role without the boundary), each named, or
 * a policy over IAM's size limit.
 */
import { MANAGED_POLICY_LIMIT, policySize, ROLE_INLINE_POLICY_LIMIT } from "eks-platform-kernel";
import { ConfigError } from "../components/config";
import { parseCommandLine, runMain } from "./cli";
import {
    deployerContext,
    deployerPolicy,
    DeployerPolicyError,
    driftPolicy,
    permissionsBoundary,
    type PlannedResource,
    plannedResources,
} from "./deployRole";
import { InputError } from "./errors";

const USAGE = "usage: npm run deployer-policy -- <stack> [--boundary | --drift] [--state-bucket <name>]";

export interface DeployerPolicyCommandEnv {
    /** The repository the stack lives in (default: the working directory). */
    root?: string;
    /** The plan of a stack (default: rendered by the program). */
    render?: (stack: string) => Promise<PlannedResource[]>;
}

/** The command, in process: its exit code and what it prints. */
export async function deployerPolicyCommand(
    argv: readonly string[],
    env: DeployerPolicyCommandEnv = {},
): Promise<{ code: number; stdout: string }> {
    const { values, positionals } = parseCommandLine(
        argv,
        { boundary: { type: "boolean" }, drift: { type: "boolean" }, "state-bucket": { type: "string" } },
        USAGE,
    );
    if (positionals.length !== 1 || (values.boundary && values.drift)) {
        throw new InputError(USAGE);
    }
    const [stack] = positionals;
    const root = env.root ?? process.cwd();
    const ctx = deployerContext(root, stack, values["state-bucket"]);
    const plan = () => (env.render ?? ((s) => plannedResources(root, s)))(stack);
    const doc = values.boundary
        ? permissionsBoundary(ctx)
        : values.drift
          ? driftPolicy(await plan(), ctx)
          : deployerPolicy(await plan(), ctx);
    const limit = values.boundary ? MANAGED_POLICY_LIMIT : ROLE_INLINE_POLICY_LIMIT;
    const size = policySize(doc);
    if (size > limit) {
        const what = values.boundary ? "permissions boundary" : values.drift ? "drift role's policy" : "deploy role's policy";
        throw new DeployerPolicyError(`the ${what} of stack "${stack}" is ${size} characters, over IAM's ${limit}`);
    }
    return { code: 0, stdout: `${JSON.stringify(doc, null, 2)}\n` };
}

if (require.main === module) {
    runMain(async () => {
        const { code, stdout } = await deployerPolicyCommand(process.argv.slice(2));
        process.stdout.write(stdout);
        return code;
    }, [ConfigError]);
}
