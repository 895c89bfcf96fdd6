import { describe, expect, it } from "vitest";
import { nextChoice, paletteOf } from "./theme.svelte";

describe("palette choice", () => {
  it("system follows the system's preference; light and dark hold whatever it is", () => {
    expect(paletteOf("system", true), "system in a dark desktop is dark").toBe("dark");
    expect(paletteOf("system", false), "system in a light desktop is light").toBe("light");
    expect(paletteOf("light", true), "light stays light").toBe("light");
    expect(paletteOf("dark", false), "dark stays dark").toBe("dark");
  });
  it("the title bar's button cycles system, light, dark and back", () => {
    expect([nextChoice("system"), nextChoice("light"), nextChoice("dark")], "the cycle").toEqual(["light", "dark", "system"]);
  });
});
