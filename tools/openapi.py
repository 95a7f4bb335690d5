#!/usr/bin/env python3
"""Writes Public/api/openapi.json, the OpenAPI 3.1 document of the apps' API (`/v1`), from the
route table below: run it after changing a route, and commit both. `docs/api.md` says how each
route answers; Tests/browser/test_api_contract.py validates the document and fuzzes the server
with it.

    python3 tools/openapi.py
"""
import json
import pathlib
DATE = {"type": "string", "pattern": r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$", "description": "UTC, milliseconds, Z"}
ID = {"type": "string", "description": "an opaque id"}
NULLSTR = {"type": ["string", "null"]}
def obj(props, required=None):
    return {"type": "object", "properties": props, "required": required if required is not None else list(props)}
def ref(name): return {"$ref": f"#/components/schemas/{name}"}
def allof(base, extra): return {"allOf": [ref(base), extra]}
schemas = {
    "Error": obj({"errorCode": {"type": "string", "pattern": r"^E\d\d$"}}),
    "Member": obj({"user_id": ID, "email": {"type": "string"}, "nickname": {"type": "string"}, "profileImage": NULLSTR}),
    "UserPublic": allof("Member", obj({"phone": NULLSTR, "provider": NULLSTR, "createdAt": DATE})),
    "MyProfile": allof("UserPublic", obj({"sesacCoin": {"type": "integer"}})),
    "UserWithToken": allof("UserPublic", obj({"token": obj({"accessToken": {"type": "string"}, "refreshToken": {"type": "string"}})})),
    "AccessToken": obj({"accessToken": {"type": "string"}}),
    "Workspace": obj({"workspace_id": ID, "name": {"type": "string"}, "description": NULLSTR, "coverImage": {"type": "string"},
                      "owner_id": ID, "createdAt": DATE}),
    "WorkspaceDetail": allof("Workspace", obj({"channels": {"type": "array", "items": ref("Channel")},
                                               "workspaceMembers": {"type": "array", "items": ref("Member")}})),
    "Channel": obj({"channel_id": ID, "name": {"type": "string"}, "description": NULLSTR, "coverImage": NULLSTR, "owner_id": ID,
                    "createdAt": DATE}),
    "ChannelDetail": allof("Channel", obj({"channelMembers": {"type": "array", "items": ref("Member")}})),
    "ChannelChat": obj({"channel_id": ID, "channelName": {"type": "string"}, "chat_id": ID, "content": {"type": "string"},
                        "createdAt": DATE, "files": {"type": "array", "items": {"type": "string"}}, "user": ref("Member")}),
    "DMRoom": obj({"room_id": ID, "createdAt": DATE, "user": ref("Member")}),
    "DMChat": obj({"dm_id": ID, "room_id": ID, "content": {"type": "string"}, "createdAt": DATE,
                   "files": {"type": "array", "items": {"type": "string"}}, "user": ref("Member")}),
    "ChannelUnread": obj({"channel_id": ID, "name": {"type": "string"}, "count": {"type": "integer", "minimum": 0}}),
    "DMUnread": obj({"room_id": ID, "count": {"type": "integer", "minimum": 0}}),
    "StoreItem": obj({"item": {"type": "string"}, "amount": {"type": "string"}}),
    "PayValidation": obj({"billing_id": {"type": "string"}, "merchant_uid": {"type": "string"}, "buyer_id": ID,
                          "productName": {"type": "string"}, "price": {"type": "integer"}, "sesacCoin": {"type": "integer"},
                          "paidAt": DATE}),
}
ERRORS = {"400": {"description": "Refused: an E-code (`docs/api.md`)", "content": {"application/json": {"schema": ref("Error")}}},
          "500": {"description": "A fault of the server: E99", "content": {"application/json": {"schema": ref("Error")}}}}
def ok(schema=None, description="Success"):
    r = {"200": {"description": description}}
    if schema is not None: r["200"]["content"] = {"application/json": {"schema": schema}}
    r.update(ERRORS)
    return r
def arr(name): return {"type": "array", "items": ref(name)}
def json_body(props, required):
    s = {"type": "object", "properties": props, "required": required}
    return {"required": True, "content": {"application/json": {"schema": s}, "application/x-www-form-urlencoded": {"schema": s}}}
def multipart(props, required, files):
    s = {"type": "object", "properties": dict(props), "required": required}
    for name, many in files:
        f = {"type": "string", "format": "binary"}
        s["properties"][name] = {"type": "array", "items": f, "maxItems": 5} if many else f
    j = {"type": "object", "properties": props, "required": required}
    return {"required": True, "content": {"multipart/form-data": {"schema": s}, "application/json": {"schema": j}}}
STR = {"type": "string"}
def p(name, where="path", required=True, description=None, schema=None):
    # A path segment is never empty (a fuzzer that draws "" only throws it away).
    d = {"name": name, "in": where, "required": required,
         "schema": schema or ({"type": "string", "minLength": 1} if where == "path" else {"type": "string"})}
    if description: d["description"] = description
    return d
KEY = [{"SesacKey": []}]
AUTH = [{"SesacKey": [], "AccessToken": []}]
W, C, R = p("workspace_id"), p("channel_id"), p("room_id")
paths = {}
def op(path, method, summary, responses, security=AUTH, params=(), body=None, tags=None):
    o = {"summary": summary, "operationId": (method + path.replace("/v1", "").replace("/", "_").replace("{", "").replace("}", "")),
         "security": security, "responses": responses}
    if params: o["parameters"] = list(params)
    if body: o["requestBody"] = body
    paths.setdefault(path, {})[method] = o
op("/v1/users/validation/email", "post", "Whether an address is free", ok(description="Free"), KEY,
   body=json_body({"email": STR}, ["email"]))
op("/v1/users/join", "post", "Sign up (when sign-up is open)", ok(ref("UserWithToken")), KEY,
   body=json_body({"email": STR, "password": STR, "nickname": STR, "phone": STR, "deviceToken": STR}, ["email", "password", "nickname"]))
op("/v1/users/login", "post", "Sign in with address and password", ok(ref("UserWithToken")), KEY,
   body=json_body({"email": STR, "password": STR, "deviceToken": STR}, ["email", "password"]))
op("/v1/users/login/kakao", "post", "Sign in with Kakao (when turned on)", ok(ref("UserWithToken")), KEY,
   body=json_body({"oauthToken": STR, "deviceToken": STR}, ["oauthToken"]))
op("/v1/users/login/apple", "post", "Sign in with Apple (when turned on)", ok(ref("UserWithToken")), KEY,
   body=json_body({"idToken": STR, "nickname": STR, "deviceToken": STR}, ["idToken"]))
op("/v1/auth/refresh", "get", "A new access token", ok(ref("AccessToken")), KEY,
   params=[p("RefreshToken", "header", True), p("Authorization", "header", False, "the old access token (not required)")])
op("/v1/users/me", "get", "The caller's account", ok(ref("MyProfile")))
op("/v1/users/me", "put", "Change nickname and phone", ok(ref("UserPublic")), body=json_body({"nickname": STR, "phone": STR}, []))
op("/v1/users/me/image", "put", "Change the profile photo (one picture)", ok(ref("UserPublic")), body=multipart({}, [], [("image", False)]))
op("/v1/users/{user_id}", "get", "Another person, as a Member", ok(ref("Member")), params=[p("user_id")])
op("/v1/workspaces", "get", "The caller's workspaces", ok(arr("Workspace")))
op("/v1/workspaces", "post", "Make a workspace", ok(ref("Workspace")), body=multipart({"name": STR, "description": STR}, ["name"], [("image", False)]))
op("/v1/workspaces/{workspace_id}", "get", "A workspace with its channels and members", ok(ref("WorkspaceDetail")), params=[W])
op("/v1/workspaces/{workspace_id}", "put", "Edit a workspace (owner)", ok(ref("Workspace")), params=[W],
   body=multipart({"name": STR, "description": STR}, [], [("image", False)]))
op("/v1/workspaces/{workspace_id}", "delete", "Delete a workspace (owner)", ok(description="Deleted"), params=[W])
op("/v1/workspaces/{workspace_id}/members", "get", "The members", ok(arr("Member")), params=[W])
op("/v1/workspaces/{workspace_id}/members", "post", "Invite an account by address (owner)", ok(ref("Member")), params=[W],
   body=json_body({"email": STR}, ["email"]))
op("/v1/workspaces/{workspace_id}/search", "get", "Channels and members whose names hold a keyword", ok(ref("WorkspaceDetail")),
   params=[W, p("keyword", "query", True)])
op("/v1/workspaces/{workspace_id}/transfer/ownership", "put", "Hand the workspace over (owner)", ok(ref("Workspace")), params=[W],
   body=json_body({"owner_id": STR}, ["owner_id"]))
op("/v1/workspaces/{workspace_id}/exit", "get", "Leave the workspace", ok(arr("Workspace")), params=[W])
op("/v1/workspaces/{workspace_id}/channels", "get", "The channels the caller may see", ok(arr("Channel")), params=[W])
op("/v1/workspaces/{workspace_id}/my-channels", "get", "The channels the caller is in", ok(arr("Channel")), params=[W])
op("/v1/workspaces/{workspace_id}/channels", "post", "Make a channel", ok(ref("Channel")), params=[W],
   body=multipart({"name": STR, "description": STR}, ["name"], [("image", False)]))
op("/v1/workspaces/{workspace_id}/channels/{channel_id}", "get", "A channel with its members", ok(ref("ChannelDetail")), params=[W, C])
op("/v1/workspaces/{workspace_id}/channels/{channel_id}", "put", "Edit a channel", ok(ref("Channel")), params=[W, C],
   body=multipart({"name": STR, "description": STR}, [], [("image", False)]))
op("/v1/workspaces/{workspace_id}/channels/{channel_id}", "delete", "Delete a channel", ok(description="Deleted"), params=[W, C])
op("/v1/workspaces/{workspace_id}/channels/{channel_id}/exit", "get", "Leave a channel", ok(arr("Channel")), params=[W, C])
op("/v1/workspaces/{workspace_id}/channels/{channel_id}/transfer/ownership", "put", "Hand a channel over", ok(ref("Channel")),
   params=[W, C], body=json_body({"owner_id": STR}, ["owner_id"]))
op("/v1/workspaces/{workspace_id}/channels/{channel_id}/chats", "get", "Every chat after the cursor, oldest first",
   ok(arr("ChannelChat")), params=[W, C, p("cursor_date", "query", False)])
op("/v1/workspaces/{workspace_id}/channels/{channel_id}/chats", "post", "Post to a channel", ok(ref("ChannelChat")), params=[W, C],
   body=multipart({"content": STR}, [], [("files", True)]))
op("/v1/workspaces/{workspace_id}/channels/{channel_id}/unreads", "get", "How many chats came after a time",
   ok(ref("ChannelUnread")), params=[W, C, p("after", "query", False)])
op("/v1/workspaces/{workspace_id}/dms", "get", "The caller's direct conversations", ok(arr("DMRoom")), params=[W])
op("/v1/workspaces/{workspace_id}/dms", "post", "Open a direct conversation", ok(ref("DMRoom")), params=[W],
   body=json_body({"opponent_id": STR}, ["opponent_id"]))
op("/v1/workspaces/{workspace_id}/dms/{room_id}/chats", "get", "Every DM after the cursor, oldest first", ok(arr("DMChat")),
   params=[W, R, p("cursor_date", "query", False)])
op("/v1/workspaces/{workspace_id}/dms/{room_id}/chats", "post", "Send a DM", ok(ref("DMChat")), params=[W, R],
   body=multipart({"content": STR}, [], [("files", True)]))
op("/v1/workspaces/{workspace_id}/dms/{room_id}/unreads", "get", "How many DMs came after a time", ok(ref("DMUnread")),
   params=[W, R, p("after", "query", False)])
op("/v1/store/item/list", "get", "The coin packs for sale", ok(arr("StoreItem")))
op("/v1/store/pay/validation", "post", "Credit a payment made at the gateway", ok(ref("PayValidation")),
   body=json_body({"imp_uid": STR, "merchant_uid": STR}, ["imp_uid", "merchant_uid"]))
files = ok(description="The file")
files["200"]["content"] = {"*/*": {"schema": {"type": "string", "format": "binary"}}}
op("/v1/static/{bucket}/{file}", "get", "A file named by a path the API answered", files, params=[
    p("bucket", schema={"type": "string", "enum": ["profiles", "workspaces", "channels", "channelChats", "dmChats"]}),
    p("file", description="`<name>_<id>.<ext>`")])
doc = {"openapi": "3.1.0",
       "info": {"title": "wsx: the apps' API", "version": "1",
                "description": "The mobile apps' /v1 contract (Gen B) as wsx serves it. Every refusal is 400 with an E-code, a fault 500 with E99; see docs/api.md."},
       "paths": paths,
       "components": {"schemas": schemas, "securitySchemes": {
           "SesacKey": {"type": "apiKey", "in": "header", "name": "SesacKey", "description": "one of the server's --api-key keys"},
           "AccessToken": {"type": "apiKey", "in": "header", "name": "Authorization", "description": "the access token, raw (or after Bearer)"}}}}
open(pathlib.Path(__file__).resolve().parents[1] / "Public/api/openapi.json", "w").write(json.dumps(doc, ensure_ascii=False, indent=1) + "\n")
print(len(paths), "paths")
