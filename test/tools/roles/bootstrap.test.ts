/**
 * tools/roles/bootstrap.ts: the one script that creates what a stack's first `pulumi up` needs, and the
 * commands the bootstrap path names (the script's, docs/bootstrap.md's, docs/roles.md's), each
 * checked against machine-readable truth: every `aws <service> <command>` is an operation (or
 * waiter) of that service's AWS SDK v3 client, every `npm run <script>` a script of package.json.
 */
import { expect } from "chai";
import { execFileSync } from "child_process";
import * as fs from "fs";
import * as path from "path";
import * as YAML from "yaml";
import type { PolicyDocument } from "../../../components/iam";
import { bootstrapCommand, bootstrapScript, type BootstrapInput, githubTrust, roleParts } from "../../../tools/roles/bootstrap";
import { environmentsOf } from "../../../tools/ci/ciNames";
import { InputError } from "../../../tools/cli/errors";
import { ROOT } from "../../mocks";
import { editedFixture, fixtureProject, stacks } from "../../stackFiles";

const doc = (sid: string): PolicyDocument => ({
    Version: "2012-10-17",
    Statement: [{ Sid: sid, Effect: "Allow", Action: "s3:GetObject", Resource: "*" }],
});

const INPUT: BootstrapInput = {
    stack: "qa",
    project: "eks-platform",
    partition: "aws",
    account: "111122223333",
    region: "eu-west-1",
    clusterName: "platform-qa",
    stateBucket: "acme-pulumi-state",
    repo: "acme/platform",
    access: {
        deployer: "arn:aws:iam::111122223333:role/platform-deployer-qa",
        preview: "arn:aws:iam::111122223333:role/ci/platform-preview-qa",
        drift: undefined,
        admins: ["arn:aws:iam::111122223333:role/platform-admin"],
    },
    usesSpot: false,
    policies: { deploy: doc("Deploy"), boundary: doc("Boundary"), drift: doc("Drift"), preview: doc("Preview") },
};

/** The here-documents of a script: file name → parsed JSON. */
function heredocs(script: string): Record<string, unknown> {
    const found: Record<string, unknown> = {};
    for (const m of script.matchAll(/cat > "\$work\/([^"]+)" <<'JSON'\n([\s\S]*?)\nJSON\n/g)) {
        found[m[1]] = JSON.parse(m[2]);
    }
    return found;
}

// ---------------------------------------------------------------------------------------------
// The AWS CLI v2 against the SDK: its commands are the services' operations, kebab-cased.

/** The SDK v3 client package of each AWS CLI service the bootstrap path uses. */
const CLIENTS: Record<string, string> = {
    iam: "@aws-sdk/client-iam",
    s3api: "@aws-sdk/client-s3",
    kms: "@aws-sdk/client-kms",
    sts: "@aws-sdk/client-sts",
    ec2: "@aws-sdk/client-ec2",
    eks: "@aws-sdk/client-eks",
    ssm: "@aws-sdk/client-ssm",
    cloudtrail: "@aws-sdk/client-cloudtrail",
};
/**
 * Commands the AWS CLI adds on top of the API (aws-cli v2, awscli/customizations): no operation
 * of the service's model, so no SDK command either.
 */
const CLI_CUSTOMIZATIONS = new Set(["eks get-token", "eks update-kubeconfig"]);

const operations = new Map<string, Set<string>>();
/** The lower-cased operations (`createrole`) and waiters (`wait natgatewayavailable`) of a CLI service. */
function operationsOf(service: string): Set<string> {
    const known = operations.get(service);
    if (known) {
        return known;
    }
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const client = require(CLIENTS[service]) as Record<string, unknown>;
    const names = new Set<string>();
    for (const name of Object.keys(client)) {
        const command = /^(\w+)Command$/.exec(name);
        const waiter = /^waitUntil(\w+)$/.exec(name);
        if (command) {
            names.add(command[1].toLowerCase());
        } else if (waiter) {
            names.add(`wait ${waiter[1].toLowerCase()}`);
        }
    }
    operations.set(service, names);
    return names;
}

/** Each `aws <service> <command>` (and `aws <service> wait <waiter>`) in shell text. */
function awsCommands(text: string): { service: string; command: string }[] {
    return [...text.matchAll(/\baws\s+([a-z0-9]+)\s+(wait\s+[a-z0-9-]+|[a-z0-9-]+)/g)].map((m) => ({ service: m[1], command: m[2] }));
}

/** Why `aws <service> <command>` is no command of the AWS CLI v2, or `undefined`. */
function unknownCommand({ service, command }: { service: string; command: string }): string | undefined {
    if (CLI_CUSTOMIZATIONS.has(`${service} ${command}`)) {
        return undefined;
    }
    if (!(service in CLIENTS)) {
        return `aws ${service} ${command}: a service this test does not know; add its SDK client to CLIENTS`;
    }
    const key = command.startsWith("wait ") ? `wait ${command.slice(5).replace(/-/g, "")}` : command.replace(/-/g, "");
    return operationsOf(service).has(key) ? undefined : `aws ${service} ${command}: no such operation in ${CLIENTS[service]}`;
}

/** The shell blocks of a Markdown file. */
function shellBlocks(file: string): string {
    const text = fs.readFileSync(path.join(ROOT, file), "utf8");
    return [...text.matchAll(/```(?:bash|sh)\n([\s\S]*?)```/g)].map((m) => m[1]).join("\n");
}

describe("tools/roles/bootstrap.ts: what a stack's first `pulumi up` needs, in one script", () => {
    describe("the script (bootstrapScript)", () => {
        const script = bootstrapScript(INPUT);

        it("is valid bash, stops at the first error, and runs only in the stack's own account", () => {
            execFileSync("bash", ["-n"], { input: script });
            expect(script).to.match(/^#!\/usr\/bin\/env bash\n/);
            expect(script).to.include("\nset -euo pipefail\n");
            const guard = script.indexOf('if [ "$account" != 111122223333 ]; then');
            expect(guard, "the account guard").to.be.greaterThan(-1);
            expect(guard, "before anything is created").to.be.lessThan(script.indexOf("create-"));
        });

        it("creates in order: the OIDC provider, the bucket and the stack's secrets key, the boundary, then the roles", () => {
            const order = [
                "aws iam create-open-id-connect-provider",
                "aws s3api create-bucket",
                "aws kms create-alias --alias-name alias/eks-platform-qa-secrets",
                "aws iam create-policy --policy-name platform-qa-boundary",
                "aws iam create-role --role-name platform-deployer-qa",
                "aws iam create-role --role-name platform-preview-qa",
            ].map((c) => script.indexOf(c));
            expect(
                order.every((i) => i > -1),
                order.join(","),
            ).to.equal(true);
            expect([...order].sort((a, b) => a - b)).to.deep.equal(order);
        });

        it("creates what is missing and updates what exists: the bucket, the key, the boundary (a new default version) and each role", () => {
            expect(script).to.include('if ! aws s3api head-bucket --bucket "$bucket"');
            expect(script).to.include("if ! aws kms describe-key --key-id alias/eks-platform-qa-secrets");
            expect(script).to.include(
                'aws iam create-policy-version --policy-arn "$boundary" --policy-document "file://$work/boundary.json" --set-as-default',
            );
            expect(script).to.include("boundary=arn:aws:iam::111122223333:policy/platform-qa-boundary");
            expect(script).to.include(
                'aws iam update-assume-role-policy --role-name platform-deployer-qa --policy-document "file://$work/trust-deploy.json"',
            );
        });

        it("makes the bucket in the stack's region (outside us-east-1 S3 needs its location), versioned, encrypted and private", () => {
            expect(script).to.include(
                'aws s3api create-bucket --bucket "$bucket" --create-bucket-configuration LocationConstraint=eu-west-1',
            );
            expect(bootstrapScript({ ...INPUT, region: "us-east-1" })).to.include('aws s3api create-bucket --bucket "$bucket"\n');
            expect(script).to.include("--versioning-configuration Status=Enabled");
            expect(script).to.include("BlockPublicAcls=true,IgnorePublicAcls=true,BlockPublicPolicy=true,RestrictPublicBuckets=true");
        });

        it("applies each policy it is given to its role, and each role trusts only its GitHub environment", () => {
            expect(heredocs(script)).to.deep.equal({
                "boundary.json": doc("Boundary"),
                "trust-deploy.json": githubTrust("aws", "111122223333", "acme/platform", "qa"),
                "deploy.json": doc("Deploy"),
                "trust-preview.json": githubTrust("aws", "111122223333", "acme/platform", "preview-qa"),
                "preview.json": doc("Preview"),
            });
            expect(script).to.include("aws iam put-role-policy --role-name platform-deployer-qa --policy-name deploy");
            expect(script).to.include("aws iam put-role-policy --role-name platform-preview-qa --policy-name preview");
            expect(script, "a stack without access.drift gets no drift role").to.not.include("drift");
        });

        it("keeps a role's path, and names the role without it", () => {
            expect(roleParts("arn:aws:iam::111122223333:role/ci/platform-preview-qa")).to.deep.equal({
                path: "/ci/",
                name: "platform-preview-qa",
            });
            expect(roleParts("arn:aws:iam::111122223333:role/platform-deployer-qa")).to.deep.equal({
                path: "/",
                name: "platform-deployer-qa",
            });
            expect(script).to.include("aws iam create-role --role-name platform-preview-qa --path /ci/ ");
        });

        it("trusts the whole subject of one environment, never a pattern", () => {
            const trust = githubTrust("aws", "111122223333", "acme/platform", "preview-qa");
            expect(trust.Statement[0].Condition).to.deep.equal({
                StringEquals: {
                    "token.actions.githubusercontent.com:aud": "sts.amazonaws.com",
                    "token.actions.githubusercontent.com:sub": "repo:acme/platform:environment:preview-qa",
                },
            });
            expect(trust.Statement[0].Principal).to.deep.equal({
                Federated: "arn:aws:iam::111122223333:oidc-provider/token.actions.githubusercontent.com",
            });
        });

        it("creates EC2 Spot's service-linked role only when told a pool uses Spot", () => {
            expect(script).to.not.include("spot.amazonaws.com");
            expect(bootstrapScript({ ...INPUT, usesSpot: true })).to.include(
                "aws iam create-service-linked-role --aws-service-name spot.amazonaws.com",
            );
        });

        it("ends with what only a person can do: the environments with their role ARNs, the runners, the stack, who may run the first up", () => {
            const next = script.slice(script.indexOf("cat <<'NEXT'"));
            expect(next).to.include(
                "- GitHub environment qa: variable AWS_ROLE_ARN=arn:aws:iam::111122223333:role/platform-deployer-qa, deployment branch main only",
            );
            expect(next).to.include(
                "- GitHub environment preview-qa: variable AWS_ROLE_ARN=arn:aws:iam::111122223333:role/ci/platform-preview-qa, no branch rule",
            );
            expect(next).to.include("repository variables RUNNER_QA and RUNNER_PREVIEW_QA");
            expect(next).to.include('pulumi stack init qa --secrets-provider "awskms://alias/eks-platform-qa-secrets?region=eu-west-1"');
            expect(next).to.include("access.deployer or a role of access.admins (arn:aws:iam::111122223333:role/platform-admin)");
        });

        it("quotes what the shell would otherwise split", () => {
            expect(bootstrapScript({ ...INPUT, stack: "qa" })).to.include("--description 'Pulumi secrets of eks-platform, stack qa'");
        });
    });

    describe("the environments it names are the workflows' (.github/workflows)", () => {
        const jobsOf = (file: string) =>
            Object.values(
                (
                    YAML.parse(fs.readFileSync(path.join(ROOT, ".github", "workflows", file), "utf8")) as {
                        jobs: Record<string, { environment?: unknown }>;
                    }
                ).jobs,
            )
                .map((j) =>
                    typeof j.environment === "object" && j.environment !== null ? (j.environment as { name?: string }).name : j.environment,
                )
                .filter((e): e is string => typeof e === "string");
        it("deploy: the stack's name; preview: preview-<stack>; drift: drift-<stack>", () => {
            const deploy = jobsOf("deploy.yml");
            expect(deploy).to.include.members([
                environmentsOf("dev").deploy,
                environmentsOf("prod").deploy,
                environmentsOf("prod").preview,
            ]);
            expect(jobsOf("pull-request.yml")).to.include(environmentsOf("${{ matrix.stack }}").preview);
            expect(jobsOf("drift.yml")).to.include(environmentsOf("${{ matrix.stack }}").drift);
        });
    });

    describe("npm run bootstrap (bootstrapCommand)", function () {
        this.timeout(300_000);

        it("names every missing or bad option at once, and prints nothing", async () => {
            const err = await bootstrapCommand(["dev"]).then(
                () => undefined,
                (e: unknown) => e,
            );
            expect(err).to.be.instanceOf(InputError);
            expect((err as Error).message).to.match(/^--state-bucket <name> is required.*\n--repo <org>\/<repo> is required/);
            const repo = await bootstrapCommand(["dev", "--state-bucket", "b-u-c", "--repo", "not a repo"]).then(
                () => undefined,
                (e: unknown) => e,
            );
            expect((repo as Error).message).to.include('--repo "not a repo" is no GitHub <org>/<repo>');
        });

        it("refuses a bucket S3 would refuse, and an unknown stack, before rendering anything", async () => {
            let rendered = false;
            const render = () => {
                rendered = true;
                return Promise.resolve([]);
            };
            const bad = await bootstrapCommand(["dev", "--state-bucket", "Bad_Bucket", "--repo", "acme/platform"], {
                root: ROOT,
                render,
            }).then(
                () => undefined,
                (e: unknown) => e,
            );
            expect((bad as Error).message).to.include('--state-bucket "Bad_Bucket"');
            const unknown = await bootstrapCommand(["nosuch", "--state-bucket", "acme-state", "--repo", "acme/platform"], {
                root: ROOT,
                render,
            }).then(
                () => undefined,
                (e: unknown) => e,
            );
            expect((unknown as Error).message).to.include('unknown stack "nosuch"');
            expect(rendered).to.equal(false);
        });

        it("on the fixture prod stack: its account, its roles, Spot's role (a Karpenter pool admits Spot), the policies `deployer-policy` prints", async () => {
            const { code, stdout } = await bootstrapCommand(["prod", "--state-bucket", "acme-state", "--repo", "acme/platform"], {
                root: fixtureProject(),
            });
            expect(code).to.equal(0);
            execFileSync("bash", ["-n"], { input: stdout });
            expect(stdout).to.include('if [ "$account" != 123456789012 ]; then');
            expect(stdout).to.include("aws iam create-policy --policy-name platform-prod-boundary");
            expect(stdout).to.include("aws iam create-service-linked-role --aws-service-name spot.amazonaws.com");
            const docs = heredocs(stdout);
            expect(Object.keys(docs)).to.include.members(["boundary.json", "deploy.json", "trust-deploy.json", "preview.json"]);
            const printed = execFileSync(
                process.execPath,
                [
                    path.join(ROOT, "tools", "cli", "run.js"),
                    path.join(ROOT, "tools", "roles", "deployerPolicy.ts"),
                    "prod",
                    "--state-bucket",
                    "acme-state",
                ],
                {
                    cwd: fixtureProject(),
                },
            ).toString();
            expect(docs["deploy.json"]).to.deep.equal(JSON.parse(printed));
        });

        it("follows the stack file's account: another account id, another guard and ARNs", async () => {
            const root = editedFixture("dev", (t) => t.replace(/123456789012/g, "210987654321"));
            const { stdout } = await bootstrapCommand(["dev", "--state-bucket", "acme-state", "--repo", "acme/platform"], { root });
            expect(stdout).to.include('if [ "$account" != 210987654321 ]; then');
            expect(stdout).to.include("boundary=arn:aws:iam::210987654321:policy/platform-dev-boundary");
            expect(stdout).to.not.include("123456789012");
        });
    });

    describe("every command the bootstrap path names exists", () => {
        const files = ["docs/bootstrap.md", "docs/roles.md", "README.md"];

        it("each `aws <service> <command>` of the docs' shell blocks and of every stack's script is an operation of that service", async () => {
            const scripts = await Promise.all(
                stacks().map((s) =>
                    bootstrapCommand([s, "--state-bucket", "acme-state", "--repo", "acme/platform"], {
                        root: ROOT,
                        render: () => Promise.resolve([]),
                    }).then((r) => r.stdout),
                ),
            );
            const commands = [...files.map(shellBlocks), ...scripts].flatMap(awsCommands);
            expect(commands.length).to.be.greaterThan(30);
            expect(commands.map(unknownCommand).filter((p) => p !== undefined)).to.deep.equal([]);
        });

        it("the check itself refuses a command no service has, a misspelt waiter and an unknown service", () => {
            expect(unknownCommand({ service: "iam", command: "create-rolle" })).to.include("no such operation in @aws-sdk/client-iam");
            expect(unknownCommand({ service: "ec2", command: "wait nat-gateway-ready" })).to.include("no such operation");
            expect(unknownCommand({ service: "ec2", command: "wait nat-gateway-available" })).to.equal(undefined);
            expect(unknownCommand({ service: "iam", command: "create-open-id-connect-provider" })).to.equal(undefined);
            expect(unknownCommand({ service: "lambda", command: "invoke" })).to.include("a service this test does not know");
        });

        it("each `npm run <script>` of those files is a script of package.json", () => {
            const scripts = (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> })
                .scripts;
            const named = files.flatMap((f) =>
                [...fs.readFileSync(path.join(ROOT, f), "utf8").matchAll(/npm run (?:-s |--silent )?([a-z][a-z:-]*)/g)].map((m) => m[1]),
            );
            expect(named).to.include("bootstrap");
            expect(named.filter((n) => !(n in scripts))).to.deep.equal([]);
        });
    });
});
