print("adm-devnet: not built yet")
