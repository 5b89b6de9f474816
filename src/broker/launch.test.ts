import { expect, test } from "bun:test";
import { launchFlags } from "./launch.ts";

const disabled = (env: Record<string, string | undefined>) =>
  launchFlags("/tmp/profile", true, env).filter((f) => f.startsWith("--disable-features="));

test("the address-bar popups and the task deferral after input are switched off, once", () => {
  expect(disabled({})).toEqual([
    "--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,DeferRendererTasksAfterInput",
  ]);
});

test("features the environment's CHROMIUM_FLAGS switch off stay off: Chromium keeps only the last --disable-features", () => {
  expect(
    disabled({
      CHROMIUM_FLAGS:
        "--enable-gpu-rasterization --disable-features=Vulkan,UseSkiaRenderer  --disable-features=WebUIOmniboxPopup --no-first-run",
    }),
  ).toEqual([
    "--disable-features=Vulkan,UseSkiaRenderer,WebUIOmniboxPopup,WebUIOmniboxAimPopup,DeferRendererTasksAfterInput",
  ]);
});
