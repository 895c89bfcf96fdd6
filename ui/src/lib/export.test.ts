import { describe, expect, it } from "vitest";
import { exportNotice, exportOptions, redactPaths, redactionLabel } from "./export";

describe("request export options", () => {
  it("splits the paths field on lines and commas, dropping blanks", () => {
    expect(redactPaths(" /a/b ,\n\nmessages[*].content\n"), "two paths").toEqual(["/a/b", "messages[*].content"]);
    expect(redactPaths("   "), "a blank field is no path").toEqual([]);
  });

  it("redacts by default and sends no path with exact bytes", () => {
    expect(exportOptions("body", false, "/model"), "redacted with a path").toEqual({
      format: "body",
      exact: false,
      redactPaths: ["/model"],
    });
    expect(exportOptions("curl", true, "/model"), "exact drops the paths").toEqual({
      format: "curl",
      exact: true,
      redactPaths: [],
    });
  });

  it("says what happened to secrets", () => {
    expect(redactionLabel({ redacted: false, secrets: 0 }), "exact").toBe("exact bytes");
    expect(redactionLabel({ redacted: true, secrets: 1 }), "one").toBe("1 secret redacted");
    expect(redactionLabel({ redacted: true, secrets: 0 }), "none found").toBe("0 secrets redacted");
    expect(
      exportNotice({ path: "/tmp/r.json", bytes: 12, secrets: 2, redacted: true }),
      "the notice starts with 'exported'",
    ).toBe("exported 12 bytes to /tmp/r.json (2 secrets redacted)");
    expect(exportNotice({ path: null, bytes: 0, secrets: 0, redacted: true }), "cancelled").toBe("export cancelled");
  });
});
