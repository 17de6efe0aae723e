/**
 * `npm run bootstrap -- <stack> --state-bucket <name> --repo <org>/<repo>`: prints the one script
 * an administrator of the stack's account runs, once per stack, before the stack's first
 * `pulumi up` — everything that must exist before it, in the order it is needed:
 *
 *   1. the account's GitHub OIDC provider (and EC2 Spot's service-linked role when a pool uses Spot),
 *   2. the state bucket (versioned, encrypted, private) and the stack's own secrets key,
 *   3. the stack's permissions boundary, then its deploy, preview and drift roles, each trusting
 *      only its GitHub environment, each with its generated policy (tools/roles/deployRole.ts, checked
 *      against AWS's authorization data as `npm run deployer-policy` checks it),
 *
 * then prints what only a person can do next (GitHub's environments and variables, the runner,
 * `pulumi stack init`). Every step creates what is missing and updates what exists, so the script
 * runs again after a change that moves the policies (the diff's "Before `pulumi up`" line). It
 * refuses to run in any account but the stack's (`access.deployer`'s). Reads nothing live itself:
 * the script is plain AWS CLI v2 to review before running.
 *
 * Exit codes: 0 printed, 2 bad input (unknown stack, bad config, a bucket or repository that
 * cannot be, a policy IAM or AWS's authorization data would refuse).
 */
import { type AccessConfig, ConfigError, parseRawConfig } from "../../components/config";
import { permissionsBoundaryName } from "eks-platform-kernel";
import { permissionsBoundaryArn, type PolicyDocument } from "../../components/iam";
import { allowsSpot } from "../../components/karpenter/aws";
import { parseCommandLine, runMain } from "../cli/cli";
import {
    checkedStackPolicy,
    type DeployerContext,
    deployerContext,
    type PolicyKind,
    plannedResources,
    secretsKeyAlias,
    STATE_BUCKET_PLACEHOLDER,
} from "./deployRole";
import { InputError } from "../cli/errors";
import { readStackFiles } from "../render/offline";
import { environmentsOf, previewRunnerVariable, runnerVariable } from "../ci/ciNames";

const USAGE = "usage: npm run bootstrap -- <stack> --state-bucket <name> --repo <org>/<repo>";

/** GitHub's OIDC issuer, as its tokens name it. */
const GITHUB_OIDC = "token.actions.githubusercontent.com";

/** A role of the stack file: its path and name (`arn:…:role/<path/>name`). Pure. */
export function roleParts(arn: string): { path: string; name: string } {
    const resource = arn
        .split(":")
        .slice(5)
        .join(":")
        .replace(/^role\//, "");
    const slash = resource.lastIndexOf("/");
    return slash < 0 ? { path: "/", name: resource } : { path: `/${resource.slice(0, slash + 1)}`, name: resource.slice(slash + 1) };
}

/** The trust policy of a CI role: GitHub's tokens of one environment of one repository, nothing else. Pure. */
export function githubTrust(partition: string, account: string, repo: string, environment: string): PolicyDocument {
    return {
        Version: "2012-10-17",
        Statement: [
            {
                Effect: "Allow",
                Principal: { Federated: `arn:${partition}:iam::${account}:oidc-provider/${GITHUB_OIDC}` },
                Action: "sts:AssumeRoleWithWebIdentity",
                // The whole subject, never a pattern: `repo:<org>/<repo>:*` admits every branch (docs/roles.md).
                Condition: {
                    StringEquals: {
                        [`${GITHUB_OIDC}:aud`]: "sts.amazonaws.com",
                        [`${GITHUB_OIDC}:sub`]: `repo:${repo}:environment:${environment}`,
                    },
                },
            },
        ],
    };
}

/** A shell word: single-quoted unless plainly safe. Pure. */
function sh(word: string): string {
    return /^[A-Za-z0-9_./:=@,+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A policy as a here-document into `file`. Pure. */
function heredoc(file: string, doc: PolicyDocument): string[] {
    return [`cat > "$work/${file}" <<'JSON'`, JSON.stringify(doc, null, 2), "JSON"];
}

/** What the script needs of the stack, and the policies it applies. */
export interface BootstrapInput extends Pick<
    DeployerContext,
    "stack" | "project" | "partition" | "account" | "region" | "clusterName" | "stateBucket"
> {
    repo: string;
    access: Pick<AccessConfig, "deployer" | "preview" | "drift" | "admins">;
    /**
     * Whether the script creates EC2 Spot's service-linked role: a Karpenter pool of the stack may
     * launch Spot, and the stack does not create the role itself (`karpenter.createSpotServiceLinkedRole`).
     */
    usesSpot: boolean;
    policies: Record<PolicyKind, PolicyDocument>;
}

/** The script. Pure. */
export function bootstrapScript(b: BootstrapInput): string {
    const env = environmentsOf(b.stack);
    const boundary = permissionsBoundaryArn({ partition: b.partition, accountId: b.account }, b.clusterName);
    const roles = [
        { key: "access.deployer", arn: b.access.deployer, environment: env.deploy, kind: "deploy" as const },
        ...(b.access.preview ? [{ key: "access.preview", arn: b.access.preview, environment: env.preview, kind: "preview" as const }] : []),
        ...(b.access.drift ? [{ key: "access.drift", arn: b.access.drift, environment: env.drift, kind: "drift" as const }] : []),
    ];
    const bucketLocation = b.region === "us-east-1" ? "" : ` --create-bucket-configuration LocationConstraint=${b.region}`;
    const alias = secretsKeyAlias(b.project, b.stack);
    const lines = [
        "#!/usr/bin/env bash",
        `# Bootstrap of stack "${b.stack}" (cluster ${b.clusterName}, account ${b.account}, ${b.region}): what must exist`,
        "# before its first `pulumi up`. Written by `npm run bootstrap`; review it, then run it once as an",
        "# administrator of that account (AWS CLI v2). It creates what is missing and updates what exists:",
        "# run it again when `npm run plan -- <stack> --diff` says the stack's role policies change.",
        "set -euo pipefail",
        `export AWS_REGION=${b.region}`,
        "work=$(mktemp -d); trap 'rm -rf \"$work\"' EXIT",
        "",
        "# 0. The stack's account, and no other.",
        `account=$(aws sts get-caller-identity --query Account --output text)`,
        `if [ "$account" != ${b.account} ]; then`,
        `  echo "these credentials are for account $account; stack ${b.stack} deploys to ${b.account} (its access.deployer)" >&2; exit 1`,
        "fi",
        "",
        "# 1. The account: GitHub's OIDC provider (CI exchanges its token for a role, no stored keys).",
        `provider=arn:${b.partition}:iam::${b.account}:oidc-provider/${GITHUB_OIDC}`,
        'aws iam get-open-id-connect-provider --open-id-connect-provider-arn "$provider" >/dev/null 2>&1 ||',
        `  aws iam create-open-id-connect-provider --url https://${GITHUB_OIDC} --client-id-list sts.amazonaws.com`,
        ...(b.usesSpot
            ? [
                  "# EC2 Spot's service-linked role: a pool of this stack launches Spot (docs/karpenter.md).",
                  "aws iam get-role --role-name AWSServiceRoleForEC2Spot >/dev/null 2>&1 ||",
                  "  aws iam create-service-linked-role --aws-service-name spot.amazonaws.com",
              ]
            : []),
        "",
        "# 2. State and secrets: the state bucket (shared by the account's stacks, each reaching only its own",
        "# objects) and this stack's own secrets key (what may decrypt one stack cannot decrypt another).",
        `bucket=${sh(b.stateBucket)}`,
        'if ! aws s3api head-bucket --bucket "$bucket" 2>/dev/null; then',
        `  aws s3api create-bucket --bucket "$bucket"${bucketLocation}`,
        "fi",
        'aws s3api put-bucket-versioning --bucket "$bucket" --versioning-configuration Status=Enabled',
        'aws s3api put-bucket-encryption --bucket "$bucket" \\',
        `  --server-side-encryption-configuration '{"Rules":[{"ApplyServerSideEncryptionByDefault":{"SSEAlgorithm":"aws:kms"},"BucketKeyEnabled":true}]}'`,
        'aws s3api put-public-access-block --bucket "$bucket" \\',
        "  --public-access-block-configuration BlockPublicAcls=true,IgnorePublicAcls=true,BlockPublicPolicy=true,RestrictPublicBuckets=true",
        `if ! aws kms describe-key --key-id ${alias} >/dev/null 2>&1; then`,
        `  key=$(aws kms create-key --description ${sh(`Pulumi secrets of ${b.project}, stack ${b.stack}`)} \\`,
        `    --tags TagKey=pulumi:stack,TagValue=${sh(b.stack)} --query KeyMetadata.Arn --output text)`,
        `  aws kms create-alias --alias-name ${alias} --target-key-id "$key"`,
        '  aws kms enable-key-rotation --key-id "$key"',
        "fi",
        "",
        "# 3. The permissions boundary first (every role the stack creates carries it), then the CI roles.",
        ...heredoc("boundary.json", b.policies.boundary),
        `boundary=${boundary}`,
        'if aws iam get-policy --policy-arn "$boundary" >/dev/null 2>&1; then',
        "  # IAM keeps five versions: drop the oldest that is not the default before adding one.",
        '  versions=$(aws iam list-policy-versions --policy-arn "$boundary" --query "length(Versions)" --output text)',
        '  if [ "$versions" -ge 5 ]; then',
        '    oldest=$(aws iam list-policy-versions --policy-arn "$boundary" --query "sort_by(Versions[?!IsDefaultVersion], &CreateDate)[0].VersionId" --output text)',
        '    aws iam delete-policy-version --policy-arn "$boundary" --version-id "$oldest"',
        "  fi",
        '  aws iam create-policy-version --policy-arn "$boundary" --policy-document "file://$work/boundary.json" --set-as-default',
        "else",
        `  aws iam create-policy --policy-name ${permissionsBoundaryName(b.clusterName)} --policy-document "file://$work/boundary.json"`,
        "fi",
    ];
    for (const role of roles) {
        const { path, name } = roleParts(role.arn);
        lines.push(
            "",
            `# ${role.key}: ${name}, assumed by CI's jobs of the GitHub environment ${role.environment} only.`,
            ...heredoc(`trust-${role.kind}.json`, githubTrust(b.partition, b.account, b.repo, role.environment)),
            ...heredoc(`${role.kind}.json`, b.policies[role.kind]),
            `if aws iam get-role --role-name ${name} >/dev/null 2>&1; then`,
            `  aws iam update-assume-role-policy --role-name ${name} --policy-document "file://$work/trust-${role.kind}.json"`,
            "else",
            `  aws iam create-role --role-name ${name} --path ${path} --assume-role-policy-document "file://$work/trust-${role.kind}.json"`,
            "fi",
            `aws iam put-role-policy --role-name ${name} --policy-name ${role.kind} --policy-document "file://$work/${role.kind}.json"`,
        );
    }
    lines.push(
        "",
        "cat <<'NEXT'",
        `Stack ${b.stack}: account ${b.account} is ready for its first \`pulumi up\`. What only a person can do next (docs/bootstrap.md, steps 4 to 8):`,
        ...roles.map(
            (r) =>
                `- GitHub environment ${r.environment}: variable AWS_ROLE_ARN=${r.arn}, ${r.kind === "preview" ? "no branch rule (pull requests use it), required reviewers if its state and secrets are sensitive" : "deployment branch main only"}`,
        ),
        `- repository variables ${runnerVariable(b.stack)} and ${previewRunnerVariable(b.stack)}: runners that reach the cluster's API endpoint (cluster.endpoint)`,
        `- pulumi login s3://${b.stateBucket} && pulumi stack init ${b.stack} --secrets-provider "awskms://${alias}?region=${b.region}"`,
        `- the first \`pulumi up\` runs as access.deployer or a role of access.admins (${b.access.admins.length > 0 ? b.access.admins.join(", ") : "none listed"}): any other role is refused before it changes anything`,
        "NEXT",
    );
    return `${lines.join("\n")}\n`;
}

/** The command without the process: the script, or an `InputError`/`ConfigError` for bad input. */
export async function bootstrapCommand(
    argv: readonly string[],
    env: { root?: string; render?: typeof plannedResources } = {},
): Promise<{ code: number; stdout: string }> {
    const { values, positionals } = parseCommandLine(argv, { "state-bucket": { type: "string" }, repo: { type: "string" } }, USAGE);
    if (positionals.length !== 1) {
        throw new InputError(USAGE);
    }
    const [stack] = positionals;
    const problems = [
        ...(values["state-bucket"] === undefined ? ["--state-bucket <name> is required: the bucket the stacks' state goes to"] : []),
        ...(values.repo === undefined
            ? ["--repo <org>/<repo> is required: the repository whose workflows assume the roles"]
            : /^[A-Za-z0-9][A-Za-z0-9-]*\/[A-Za-z0-9._-]+$/.test(values.repo)
              ? []
              : [`--repo "${values.repo}" is no GitHub <org>/<repo>`]),
    ];
    if (problems.length > 0) {
        throw new InputError(`${problems.join("\n")}\n${USAGE}`);
    }
    const root = env.root ?? process.cwd();
    const bucket = values["state-bucket"] ?? STATE_BUCKET_PLACEHOLDER;
    const ctx = deployerContext(root, stack, bucket);
    const config = parseRawConfig(readStackFiles(root, stack).config, stack);
    const plan = await (env.render ?? plannedResources)(root, stack);
    const policies = {} as Record<PolicyKind, PolicyDocument>;
    for (const kind of ["boundary", "deploy", "preview", "drift"] as const) {
        policies[kind] = await checkedStackPolicy(kind, kind === "boundary" || kind === "preview" ? [] : plan, ctx);
    }
    const k = config.karpenter;
    const usesSpot = k.enabled && !k.createSpotServiceLinkedRole && Object.values(k.nodePools).some(allowsSpot);
    return {
        code: 0,
        stdout: bootstrapScript({
            ...ctx,
            repo: values.repo ?? "",
            access: config.access,
            usesSpot,
            policies,
        }),
    };
}

if (require.main === module) {
    runMain(async () => {
        const { code, stdout } = await bootstrapCommand(process.argv.slice(2));
        process.stdout.write(stdout);
        return code;
    }, [ConfigError]);
}
