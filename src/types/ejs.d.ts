/** The parts of EJS (which ships no type declarations) the gateway calls directly. */
declare module 'ejs' {
  interface Ejs {
    /** what `<%= %>` writes: &, <, >, " and ' as entities */
    escapeXML(markup: string): string;
    renderFile(
      path: string,
      data: object,
      options: { cache?: boolean; compileDebug?: boolean; views?: string[] },
      callback: (err: Error | null, html?: string) => void,
    ): void;
  }
  const ejs: Ejs;
  export default ejs;
}
