import AdamantCLI

await AdmPush.tool.main()
