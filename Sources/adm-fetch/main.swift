import AdamantCLI

AdmFetch.tool.main()
