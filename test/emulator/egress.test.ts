import { describe, expect, test } from "vitest";
import { checkEgress } from "../../emulator/egress";

const refusal = (allowOut: string[], denyOut: string[]) => {
  try {
    checkEgress(allowOut, denyOut);
    return undefined;
  } catch (err) {
    return `${(err as { status?: number }).status} ${(err as Error).message}`;
  }
};

describe("egress rules, as the service's create handler enforces them", () => {
  test("accepted: IPs, CIDRs (v4 and v6), all traffic, and domains with all other traffic denied", () => {
    expect(refusal(["1.1.1.1", "10.0.0.0/8", "2001:db8::/32"], ["0.0.0.0/0", "192.168.1.1"])).toBeUndefined();
    expect(refusal(["example.com", "*.example.org"], ["0.0.0.0/0"])).toBeUndefined();
    expect(refusal([], [])).toBeUndefined();
  });

  test("refused, with the service's messages", () => {
    expect(refusal([], ["example.com"])).toBe("400 invalid denied CIDR example.com");
    expect(refusal([], ["0.0.0.0"])).toBe("400 invalid denied CIDR 0.0.0.0");
    expect(refusal([], ["10.0.0.0/33"])).toBe("400 invalid denied CIDR 10.0.0.0/33");
    expect(refusal(["0.0.0.0"], [])).toBe("400 invalid allowed address 0.0.0.0");
    expect(refusal(["example.com"], ["10.0.0.0/8"])).toBe(
      "400 When specifying allowed domains in allow out, you must include 'ALL_TRAFFIC' in deny out to block all other traffic.",
    );
  });
});
