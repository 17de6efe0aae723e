/**
 * `npm run deployer-policy -- <stack> [--boundary | --drift | --preview] [--state-bucket <name>]`:
 * the IAM policy of the stack's deploy role (`access.deployer`), derived from what the stack's plan
 * creates; with `--boundary` the permissions boundary every role of the stack carries; with
 * `--drift` the read-only policy of the drift check's role (`access.drift`): the deploy policy's
 * reads; with `--preview` the preview role's (`access.preview`): its state read-only and the
 * preview's lookups (tools/roles/deployRole.ts says what each grants). Each is checked against AWS's
 * authorization data before it is printed (tools/roles/authorizationData.ts). The account, partition and region come from the stack file; the state bucket
 * from `--state-bucket` (a `<state-bucket>` placeholder without it). With `--denied <file>` it reads
 * saved CloudTrail events and says what in these policies refused each denied call
 * (tools/roles/deniedEvents.ts; exit 1 when they refused any).
 *
 * Exit codes: 0 printed; 2 bad input (unknown stack, bad config) or a plan the policy cannot scope
 * (a type without actions, a role outside the prefix, a role without the boundary), each named, or
 * a policy over IAM's size limit, or one AWS's authorization data contradicts (an action that does
 * not exist, a condition key it does not support, a resource of no type it accepts).
 */
import { ConfigError } from "../../components/config";
import { parseCommandLine, runMain } from "../cli/cli";
import { boundaryNotes, checkedStackPolicy, deployerContext, type PlannedResource, plannedResources, type PolicyKind } from "./deployRole";
import { deniedEventsCommand } from "./deniedEvents";
import { InputError } from "../cli/errors";

const USAGE =
    "usage: npm run deployer-policy -- <stack> [--boundary | --drift | --preview] [--state-bucket <name>]\n" +
    "       npm run deployer-policy -- <stack> --denied <cloudtrail.json> [--state-bucket <name>]";

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
): Promise<{ code: number; stdout: string; stderr?: string }> {
    const { values, positionals } = parseCommandLine(
        argv,
        {
            boundary: { type: "boolean" },
            drift: { type: "boolean" },
            preview: { type: "boolean" },
            denied: { type: "string" },
            "state-bucket": { type: "string" },
        },
        USAGE,
    );
    const kinds = (["boundary", "drift", "preview"] as const).filter((k) => values[k] === true);
    if (positionals.length !== 1 || kinds.length + (values.denied === undefined ? 0 : 1) > 1) {
        throw new InputError(USAGE);
    }
    const kind: PolicyKind = kinds[0] ?? "deploy";
    const [stack] = positionals;
    const root = env.root ?? process.cwd();
    const ctx = deployerContext(root, stack, values["state-bucket"]);
    const render = () => (env.render ?? ((s) => plannedResources(root, s)))(stack);
    if (values.denied !== undefined) {
        // Saved CloudTrail events judged against the deploy policy and the boundary (tools/roles/deniedEvents.ts).
        return deniedEventsCommand(values.denied, ctx, render);
    }
    // The boundary and the preview role's policy read no plan: they need no render.
    const plan = kind === "boundary" || kind === "preview" ? [] : await render();
    const doc = await checkedStackPolicy(kind, plan, ctx);
    // What the boundary cannot judge is said, on stderr, so the printed policy stays valid JSON.
    const notes = kind === "boundary" ? boundaryNotes(ctx) : [];
    return { code: 0, stdout: `${JSON.stringify(doc, null, 2)}\n`, ...(notes.length > 0 ? { stderr: `${notes.join("\n")}\n` } : {}) };
}

if (require.main === module) {
    runMain(async () => {
        const { code, stdout, stderr } = await deployerPolicyCommand(process.argv.slice(2));
        process.stdout.write(stdout);
        process.stderr.write(stderr ?? "");
        return code;
    }, [ConfigError]);
}
