import AdamantCLI

await AdmFetch.tool.main()
