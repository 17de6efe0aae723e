import { expect } from "chai";
import {
    actionCovers,
    allowsEverything,
    CONDITION_OPERATORS,
    conditionOperatorProblem,
    isAccountWideResource,
    isEveryResource,
    isPolicyArn,
    policyArnKey,
    policySize,
    ROLE_INLINE_POLICY_LIMIT,
} from "eks-platform-kernel";

describe("kernel/iamPolicy.ts", () => {
    it("accepts every IAM condition operator, with IfExists and the ForAnyValue:/ForAllValues: qualifiers (IAM condition operators page)", () => {
        for (const operator of CONDITION_OPERATORS) {
            expect(conditionOperatorProblem(operator), operator).to.equal(undefined);
            if (operator !== "Null") {
                expect(conditionOperatorProblem(`${operator}IfExists`), operator).to.equal(undefined);
                expect(conditionOperatorProblem(`ForAnyValue:${operator}`), operator).to.equal(undefined);
                expect(conditionOperatorProblem(`ForAllValues:${operator}IfExists`), operator).to.equal(undefined);
            }
        }
        expect(CONDITION_OPERATORS).to.include.members([
            "StringEquals",
            "StringLike",
            "ArnLike",
            "Null",
            "Bool",
            "IpAddress",
            "DateGreaterThan",
            "NumericLessThan",
            "BinaryEquals",
        ]);
        expect(CONDITION_OPERATORS).to.have.length(27);
    });

    it("refuses an operator IAM does not know, hinting the spelling it meant", () => {
        expect(conditionOperatorProblem("StringEqual")).to.match(
            /^is not an IAM condition operator: use one of StringEquals, StringNotEquals, .*Null, optionally with the IfExists suffix or a ForAnyValue:\/ForAllValues: qualifier$/,
        );
        expect(conditionOperatorProblem("stringequals")).to.equal(
            "is not an IAM condition operator: write it as StringEquals, optionally with the IfExists suffix or a ForAnyValue:/ForAllValues: qualifier",
        );
        expect(conditionOperatorProblem("ForAnyValue:arnlikeIfExists")).to.match(/write it as ForAnyValue:ArnLikeIfExists,/);
        for (const bad of ["IfExists", "ForAnyValue:", "ForSomeValues:StringEquals", "StringEqualsIfExistsIfExists", ""]) {
            expect(conditionOperatorProblem(bad), bad).to.match(/^is not an IAM condition operator/);
        }
    });

    it("refuses Null with IfExists or a set qualifier: it is itself the existence check", () => {
        expect(conditionOperatorProblem("NullIfExists")).to.equal(
            "Null takes no IfExists suffix (it is itself the check that a key exists)",
        );
        expect(conditionOperatorProblem("ForAnyValue:Null")).to.equal(
            "Null takes no ForAnyValue: qualifier (it tests whether the key is present, not its values)",
        );
    });

    it("counts a policy's size as IAM does, white space left out (IAM quotas: 10,240 characters per role)", () => {
        expect(ROLE_INLINE_POLICY_LIMIT).to.equal(10240);
        expect(policySize({ Version: "2012-10-17", Statement: [] })).to.equal('{"Version":"2012-10-17","Statement":[]}'.length);
        expect(policySize('{ "a" : "b c" }')).to.equal('{"a":"bc"}'.length);
        expect(policySize(undefined)).to.equal(0);
    });

    it("matches action patterns as IAM does: * any run, ? one character, any case", () => {
        expect(actionCovers("sts:Assume*", "sts:AssumeRole")).to.equal(true);
        expect(actionCovers("STS:assumerole", "sts:AssumeRole")).to.equal(true);
        expect(actionCovers("sts:AssumeRol?", "sts:AssumeRole")).to.equal(true);
        expect(actionCovers(" sts:AssumeRole ", "sts:AssumeRole")).to.equal(true);
        expect(actionCovers("sts:AssumeRoleWithSAML", "sts:AssumeRole")).to.equal(false);
        expect(actionCovers("sts:Assume.ole", "sts:AssumeRole")).to.equal(false);
        expect(actionCovers("s", "sts:AssumeRole")).to.equal(false);
        // Characters a regular expression would read are matched as themselves.
        expect(actionCovers("a+b(c)", "a+b(c)")).to.equal(true);
    });

    it("tells account-wide IAM resources from named ones", () => {
        for (const wide of [
            "*",
            " * ",
            "arn:aws:iam::*:role/*",
            "arn:aws:iam::123456789012:role/*",
            "arn:aws:iam::123456789012:role*",
            "arn:aws:iam::123456789012:*",
            "arn:aws:iam::123456789012:policy/?*",
            "arn:*:iam::123456789012:role/a",
            "arn:aws:*:*:*:*",
            "arn:aws:iam::12345678901?:role/a",
            "*role/a",
            "arn:*",
            "arn:aws:ia*",
            "arn:aws:iam::1234*:role/a",
        ]) {
            expect(isAccountWideResource(wide), wide).to.equal(true);
        }
        for (const named of [
            "arn:aws:iam::123456789012:role/app-*",
            "arn:aws:iam::123456789012:role/service-role/*",
            "arn:aws:iam::123456789012:role/app",
            "arn:aws:s3:::*",
            "arn:aws:s3:::bucket/*",
            "role/*",
            "arn:aws:iam",
            "arn:aws:sqs:*:*:*",
            "arn:aws:iam::123456789012:role/a/*",
        ]) {
            expect(isAccountWideResource(named), named).to.equal(false);
        }
    });

    it("tells every resource of a service from some of them", () => {
        for (const every of [
            "*",
            " * ",
            "**",
            "arn:*",
            "arn:aws*",
            "arn:aws:*",
            "arn:aws:s3:::*",
            "arn:aws:s3:::*/*",
            "arn:aws:sqs:*:*:*",
            "arn:aws:logs:us-east-1:1:*:*",
            "arn:*:s3:::b",
            "arn:aws:*:::b",
        ]) {
            expect(isEveryResource(every), every).to.equal(true);
        }
        for (const some of [
            "arn:aws:s3:::b/*",
            "arn:aws:sqs:*:*:queue-*",
            "arn:aws:s3:::",
            "b*",
            "arn:aws:s3:::?",
            "*foo",
            "arn:aws:s3:::*b",
            "arn:aws:s3",
            "foo:a:b:c:d:*",
        ]) {
            expect(isEveryResource(some), some).to.equal(false);
        }
    });

    it("keys managed policy ARNs by account, path and name", () => {
        expect(policyArnKey("arn:aws:iam::aws:policy/service-role/AmazonEBSCSIDriverPolicy")).to.equal(
            "aws-service-role-AmazonEBSCSIDriverPolicy",
        );
        expect(policyArnKey("arn:aws:iam::111122223333:policy/teams/shop/reports-read")).to.equal("111122223333-teams-shop-reports-read");
        expect(isPolicyArn("arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess")).to.equal(true);
        expect(isPolicyArn("arn:aws:iam::111122223333:role/admin")).to.equal(false);
        expect(isPolicyArn("AmazonS3ReadOnlyAccess")).to.equal(false);
    });

    it("calls Allow of * or *:* on Resource * administrator access, and nothing narrower", () => {
        expect(allowsEverything({ Effect: "Allow", Action: "*", Resource: "*" })).to.equal(true);
        expect(allowsEverything({ Effect: "Allow", Action: ["s3:GetObject", "*:*"], Resource: ["arn:aws:s3:::b/*", "*"] })).to.equal(true);
        expect(allowsEverything({ Effect: "Deny", Action: "*", Resource: "*" })).to.equal(false);
        expect(allowsEverything({ Effect: "Allow", Action: "*", Resource: "arn:aws:s3:::b/*" })).to.equal(false);
        expect(allowsEverything({ Effect: "Allow", Action: "s3:*", Resource: "*" })).to.equal(false);
    });
});
