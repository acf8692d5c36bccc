import AdamantCLI

AdmPush.tool.main()
