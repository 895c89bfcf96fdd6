// The palette the window wears: the system's, or light or dark as chosen, kept across runs.
// The stylesheet holds both palettes; this only says which one `:root` takes.

export type ThemeChoice = "system" | "light" | "dark";

const KEY = "journalscope.theme";
const ORDER: ThemeChoice[] = ["system", "light", "dark"];

export const theme = $state({ choice: "system" as ThemeChoice, palette: "light" as "light" | "dark" });

/** The palette a choice resolves to, given whether the system prefers dark. */
export function paletteOf(choice: ThemeChoice, systemDark: boolean): "light" | "dark" {
  return choice === "system" ? (systemDark ? "dark" : "light") : choice;
}

/** The choice after `choice` in the title bar's cycle: system, light, dark. */
export function nextChoice(choice: ThemeChoice): ThemeChoice {
  return ORDER[(ORDER.indexOf(choice) + 1) % ORDER.length];
}

function systemQuery(): MediaQueryList | null {
  return typeof window !== "undefined" && window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
}

function apply() {
  if (typeof document === "undefined") return;
  theme.palette = paletteOf(theme.choice, systemQuery()?.matches ?? false);
  document.documentElement.dataset.theme = theme.palette;
  document.documentElement.dataset.themeChoice = theme.choice;
}

/** Reads the kept choice and follows the system's preference while the choice is "system". */
export function startTheme() {
  const kept = (() => {
    try {
      return localStorage.getItem(KEY);
    } catch {
      return null;
    }
  })();
  if (kept && (ORDER as string[]).includes(kept)) theme.choice = kept as ThemeChoice;
  apply();
  systemQuery()?.addEventListener("change", apply);
}

export function cycleTheme() {
  theme.choice = nextChoice(theme.choice);
  try {
    localStorage.setItem(KEY, theme.choice);
  } catch {
    // A window that cannot keep it still wears it until it closes.
  }
  apply();
}
