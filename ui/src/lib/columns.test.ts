import { describe, expect, it } from "vitest";
import { clampColumn, DEFAULT_COLUMNS, parseColumns } from "./columns";

describe("event list column widths", () => {
  it("hold a dragged width within the column's bounds", () => {
    expect(clampColumn("type", 10), "the type column never shrinks to nothing").toBe(60);
    expect(clampColumn("type", 5000), "nor takes the whole list").toBe(420);
    expect(clampColumn("time", 0), "the time column may be dragged shut").toBe(0);
    expect(clampColumn("type", 180.6), "whole pixels").toBe(181);
  });
  it("read kept widths, falling back to the defaults for anything missing or broken", () => {
    expect(parseColumns('{"type":200}'), "a kept type width, the default time").toEqual({ type: 200, time: DEFAULT_COLUMNS.time });
    expect(parseColumns("not json"), "a damaged entry").toEqual(DEFAULT_COLUMNS);
    expect(parseColumns(null), "nothing kept").toEqual(DEFAULT_COLUMNS);
    expect(parseColumns('{"type":"wide","time":9999}'), "wrong types and bounds").toEqual({ type: DEFAULT_COLUMNS.type, time: 200 });
  });
});
